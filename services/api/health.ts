/** Liveness, readiness (every dependency this instance needs answers; the rest reported) and Prometheus metrics. */
import express, { Router } from 'express';
import type { Server } from 'node:http';
import { logger } from '../platform/logger';
import type { Runtime } from '../chain/clients';
import { metricsRegistry, registerLagGauge, sharedStateGauge } from '../platform/metrics';
import { storedOffsets } from '../platform/checkpointed-consumer';
import { PROCESSOR_GROUP } from '../processor/processor';
import { DISPATCHER_GROUP } from '../dispatcher/dispatcher';
import { STATS_GROUP } from '../stats/consumer';
import type { TopicKey } from '../../topics';
import { ApiError, sendJson } from './errors';
import { scrape } from '../platform/cluster-metrics';
import { registryAccess, registryGet } from '../platform/wire/registry-access';
import { readinessDetails, registerHealthGauges } from './health-details';
import { unpublishedCount } from '../relay/relay';

const CHECK_TIMEOUT_MS = 2_000;
/** Real ms a readiness answer is reused for. */
const READY_CACHE_MS = 1_000;

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
    g.set(await unpublishedCount(rt.pool));
  });
}

/**
 * GET /metrics: the Prometheus text of the whole process tree (in a cluster worker, the primary's aggregate of
 * every worker and its own roles: platform/cluster-metrics.ts), else of this process.
 */
export function metricsRouter(): Router {
  const router = Router();
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

/**
 * The metrics listener (METRICS_PORT > 0). A port already taken (a second service on one machine) is
 * logged, not fatal: the API serves without its metrics rather than not at all.
 */
export function startMetricsServer(rt: Runtime): Server {
  const app = express();
  app.disable('x-powered-by');
  app.use(metricsRouter());
  const host = rt.cfg.METRICS_HOST ?? rt.cfg.API_HOST;
  const server = app.listen(rt.cfg.METRICS_PORT, host, () => logger.info({ url: `http://${host}:${rt.cfg.METRICS_PORT}/metrics` }, 'metrics listening'));
  server.on('error', (err) => logger.error({ err: err.message, port: rt.cfg.METRICS_PORT }, 'metrics listener not started'));
  return server;
}

/** Liveness and readiness; /metrics too when METRICS_PORT is 0 (else on its own listener). */
export function healthRouter(rt: Runtime): Router {
  const router = Router();
  registerLagGauge(() => processorLag(rt));
  registerHealthGauges(rt);
  registerBacklogGauges(rt);
  // What this instance needs to serve. Redis is not among them: without it answers come from PostgreSQL and
  // budgets are counted per process (docs/outages.md), so it is reported, never a reason to take the
  // instance out of a load balancer.
  const registry = registryAccess(rt.cfg);
  const checks: Record<string, () => Promise<unknown>> = {
    kafka: () => rt.log.endOffsets(rt.codec.topicName('accountCommands')),
    schema_registry: async () => {
      // The global config, not /subjects: listing every subject grows with every topic ever registered and
      // timed the check out on a registry that had seen many test worlds.
      const status = await registryGet(registry, '/config');
      if (status < 200 || status >= 300) throw new Error(`HTTP ${status}`);
    },
    postgres: () => rt.pool.query('SELECT 1'),
    redis: () => rt.redis.ping(),
  };
  const optional = new Set(['redis']);

  router.get('/healthz', (_req, res) => {
    res.type('text/plain').send('ok');
  });
  // One pass over the dependencies per READY_CACHE_MS whatever the request rate: /readyz is public (the
  // scripts and load balancers poll it), and each pass is four round trips (and the details' two reads).
  type Readiness = { ready: boolean; checks: Record<string, string>; details: Record<string, unknown> };
  let last: { at: number; answer: Promise<Readiness> } | undefined;
  const readiness = () => {
    const now = performance.now();
    if (!last || now - last.at >= READY_CACHE_MS) last = { at: now, answer: checkAll() };
    return last.answer;
  };
  const checkAll = async (): Promise<Readiness> => {
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
    return { ready: results.every(([name, state]) => state === 'ok' || optional.has(name)), checks: Object.fromEntries(results), details };
  };
  router.get('/readyz', async (_req, res) => {
    const answer = await readiness();
    sendJson(res, answer.ready ? 200 : 503, answer);
  });
  if (rt.cfg.METRICS_PORT === 0) router.use(metricsRouter());
  return router;
}
