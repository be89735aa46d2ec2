/** Liveness, readiness (every dependency this instance needs answers; the rest reported) and Prometheus metrics. */
import { Router } from 'express';
import type { Runtime } from '../platform/runtime';
import { metricsRegistry, registerLagGauge, sharedStateGauge } from '../platform/metrics';
import { storedOffsets } from '../platform/checkpointed-consumer';
import { PROCESSOR_GROUP } from '../processor/processor';
import { DISPATCHER_GROUP } from '../dispatcher/dispatcher';
import { STATS_GROUP } from '../stats/consumer';
import type { TopicKey } from '../../topics';
import { ApiError, sendJson } from './errors';
import { scrape } from '../platform/cluster-metrics';
import { readinessDetails, registerHealthGauges } from './health-details';

const CHECK_TIMEOUT_MS = 2_000;

function withTimeout<T>(p: Promise<T>): Promise<T> {
  return Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error('timed out')), CHECK_TIMEOUT_MS))]);
}

/** Lag per partition: the log's end minus the group's stored position. */
async function groupLag(rt: Runtime, group: string, key: TopicKey): Promise<Array<{ topic: string; partition: number; lag: bigint }>> {
  const topic = rt.codec.topicName(key);
  const ends = await rt.log.endOffsets(topic);
  const stored = await storedOffsets(rt.pool, group, topic);
  return [...ends].map(([partition, end]) => ({ topic, partition, lag: end - (stored.get(partition) ?? 0n) }));
}

export function processorLag(rt: Runtime): Promise<Array<{ topic: string; partition: number; lag: bigint }>> {
  return groupLag(rt, PROCESSOR_GROUP, 'accountCommands');
}

/** Every consumer group that keeps its position in PostgreSQL, and the topic it reads. */
const CONSUMER_GROUPS: Array<[string, TopicKey]> = [[PROCESSOR_GROUP, 'accountCommands'], [DISPATCHER_GROUP, 'accountEvents'], [STATS_GROUP, 'orderEvents']];

export function registerBacklogGauges(rt: Runtime): void {
  sharedStateGauge('consumer_group_lag_records', 'Records on the log not yet applied, per consumer group and partition.', ['group', 'topic', 'partition'], async (g) => {
    for (const [group, key] of CONSUMER_GROUPS) {
      for (const row of await groupLag(rt, group, key)) g.set({ group, topic: row.topic, partition: String(row.partition) }, Number(row.lag));
    }
  });
  sharedStateGauge('outbox_backlog_rows', 'Outbox rows the relay has not published yet.', [], async (g) => {
    const { rows } = await rt.pool.query('SELECT count(*)::int AS n FROM outbox WHERE published_at IS NULL');
    g.set(rows[0].n);
  });
}

export function healthRouter(rt: Runtime): Router {
  const router = Router();
  registerLagGauge(() => processorLag(rt));
  registerHealthGauges(rt);
  registerBacklogGauges(rt);
  // What this instance needs to serve. Redis is not among them: without it answers come from PostgreSQL and
  // budgets are counted per process (docs/outages.md), so it is reported, never a reason to take the
  // instance out of a load balancer.
  const checks: Record<string, () => Promise<unknown>> = {
    kafka: () => rt.log.endOffsets(rt.codec.topicName('accountCommands')),
    schema_registry: async () => {
      // The global config, not /subjects: listing every subject grows with every topic ever registered and
      // timed the check out on a registry that had seen many test worlds.
      const res = await fetch(`${rt.cfg.SCHEMA_REGISTRY_URL}/config`);
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
    },
    postgres: () => rt.pool.query('SELECT 1'),
    redis: () => rt.redis.ping(),
  };
  const optional = new Set(['redis']);

  router.get('/healthz', (_req, res) => {
    res.type('text/plain').send('ok');
  });
  router.get('/readyz', async (_req, res) => {
    const [results, details] = await Promise.all([
      Promise.all(
        Object.entries(checks).map(async ([name, check]) => {
          try {
            await withTimeout(check());
            return [name, 'ok'] as const;
          } catch (err) {
            return [name, `down: ${(err as Error).message}`] as const;
          }
        }),
      ),
      readinessDetails(rt),
    ]);
    const ready = results.every(([name, state]) => state === 'ok' || optional.has(name));
    sendJson(res, ready ? 200 : 503, { ready, checks: Object.fromEntries(results), details });
  });
  router.get('/metrics', async (_req, res, next) => {
    let text: string;
    try {
      text = await scrape();
    } catch {
      return next(new ApiError('service_unavailable', 'The metrics could not be gathered; try again.'));
    }
    res.type(metricsRegistry.contentType).send(text);
  });
  return router;
}
