/** Liveness, readiness (every dependency answers) and Prometheus metrics. */
import express, { Router } from 'express';
import type { Server } from 'node:http';
import { logger } from '../platform/logger';
import type { Runtime } from '../chain/clients';
import { metricsRegistry, registerLagGauge } from '../platform/metrics';
import { storedOffsets } from '../platform/checkpointed-consumer';
import { PROCESSOR_GROUP } from '../processor/processor';
import { sendJson } from './errors';

const CHECK_TIMEOUT_MS = 2_000;
/** Real ms a readiness answer is reused for. */
const READY_CACHE_MS = 1_000;

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

/** GET /metrics: the Prometheus text of this process. */
export function metricsRouter(): Router {
  const router = Router();
  router.get('/metrics', async (_req, res) => {
    res.type(metricsRegistry.contentType).send(await metricsRegistry.metrics());
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
  // One pass over the dependencies per READY_CACHE_MS whatever the request rate: /readyz is public (the
  // scripts and load balancers poll it), and each pass is four round trips.
  let last: { at: number; answer: Promise<{ ready: boolean; checks: Record<string, string> }> } | undefined;
  const readiness = () => {
    const now = performance.now();
    if (!last || now - last.at >= READY_CACHE_MS) last = { at: now, answer: checkAll() };
    return last.answer;
  };
  const checkAll = async () => {
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
    return { ready: results.every(([, state]) => state === 'ok'), checks: Object.fromEntries(results) };
  };
  router.get('/readyz', async (_req, res) => {
    const answer = await readiness();
    sendJson(res, answer.ready ? 200 : 503, answer);
  });
  if (rt.cfg.METRICS_PORT === 0) router.use(metricsRouter());
  return router;
}
