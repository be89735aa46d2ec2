/** Liveness, readiness (every dependency answers) and Prometheus metrics. */
import { Router } from 'express';
import type { Runtime } from '../chain/clients';
import { metricsRegistry, registerLagGauge } from '../platform/metrics';
import { storedOffsets } from '../platform/checkpointed-consumer';
import { PROCESSOR_GROUP } from '../processor/processor';
import { sendJson } from './errors';

const CHECK_TIMEOUT_MS = 2_000;

function withTimeout<T>(p: Promise<T>): Promise<T> {
  return Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error('timed out')), CHECK_TIMEOUT_MS))]);
}

/** Lag per partition: the log's end minus the processor's stored position. */
export async function processorLag(rt: Runtime): Promise<Array<{ topic: string; partition: number; lag: bigint }>> {
  const topic = rt.codec.topicName('accountCommands');
  const ends = await rt.log.endOffsets(topic);
  const stored = await storedOffsets(rt.pool, PROCESSOR_GROUP, topic);
  return [...ends].map(([partition, end]) => ({ topic, partition, lag: end - (stored.get(partition) ?? 0n) }));
}

export function healthRouter(rt: Runtime): Router {
  const router = Router();
  registerLagGauge(() => processorLag(rt));
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

  router.get('/healthz', (_req, res) => {
    res.type('text/plain').send('ok');
  });
  router.get('/readyz', async (_req, res) => {
    const results = await Promise.all(
      Object.entries(checks).map(async ([name, check]) => {
        try {
          await withTimeout(check());
          return [name, 'ok'] as const;
        } catch (err) {
          return [name, `down: ${(err as Error).message}`] as const;
        }
      }),
    );
    const ready = results.every(([, state]) => state === 'ok');
    sendJson(res, ready ? 200 : 503, { ready, checks: Object.fromEntries(results) });
  });
  router.get('/metrics', async (_req, res) => {
    res.type(metricsRegistry.contentType).send(await metricsRegistry.metrics());
  });
  return router;
}
