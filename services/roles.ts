/**
 * Roles of the one program. A local run starts them all in one process; production scales each alone.
 * No role keeps state a restart would lose: positions live in PostgreSQL, the log holds the rest.
 */
import type { Server } from 'node:http';
import { createApp } from './api/app';
import { warmUpApi } from './api/warm-up';
import { startMetricsServer } from './api/health';
import { commandBusFor } from './platform/command-bus';
import { logger } from './platform/logger';
import { startHeartbeats } from './platform/liveness';
import { commandsApplied, outboxPublished } from './platform/metrics';
import type { Runtime } from './chain/clients';
import { PROCESSOR_GROUP, startProcessor } from './processor/processor';
import { catchUpAfterRestore } from './ops/restore';
import { startRelay } from './relay/relay';
import { DISPATCHER_GROUP, startDispatcher } from './dispatcher/dispatcher';
import { startDepositWatcher } from './deposits/watcher';
import { webhookSecretBox } from './webhooks/secrets';
import { startBroadcaster } from './delivery/broadcaster';
import { appendOnlyBus } from './delivery/chain-deps';
import { startConfirmer } from './delivery/confirmer';
import { startScheduler } from './delivery/scheduler';
import { startPromoGranter } from './promo/granter';
import { startForwardWatcher } from './promo/forward-watcher';
import { startStatsProjection } from './stats/consumer';
import { startReconciler } from './reconciler/reconciler';
import { startPurger } from './ops/purge';
import { startBatchExecutor } from './batches/executor';
import { startSubscriptionWatcher } from './subscriptions/watcher';
import { startDeskReturner } from './desk/returner';

export const allRoles = ['api', 'processor', 'relay', 'dispatcher', 'deposit-watcher', 'broadcaster', 'confirmer', 'scheduler', 'promo-granter', 'promo-forward-watcher', 'stats', 'reconciler', 'batch-executor', 'subscription-watcher', 'desk-returner'] as const;
export type Role = (typeof allRoles)[number];

/**
 * Roles on the path of an answer (a request waits for them). A process running any of them keeps its
 * priority; one running none is background work and is niced (BACKGROUND_NICE, see backgroundNice).
 */
export const answerPathRoles: readonly Role[] = ['api', 'processor', 'relay'];

/** The nice value a process running `roles` takes: `nice` when none is on the answer path, else 0 (unchanged). */
export function backgroundNice(roles: readonly Role[], nice: number): number {
  return roles.some((r) => answerPathRoles.includes(r)) ? 0 : nice;
}

/** The API's listen backlog: connections accepted by the kernel and not yet by the process. */
const LISTEN_BACKLOG = 4_096;

export interface Stoppable {
  stop(): Promise<void>;
}

export function parseRoles(text: string): Role[] {
  if (text === 'all') return [...allRoles];
  const roles = text.split(',').map((r) => r.trim()).filter(Boolean);
  for (const r of roles) {
    if (!(allRoles as readonly string[]).includes(r)) throw new Error(`unknown role ${r}; known: ${allRoles.join(', ')}, all`);
  }
  return roles as Role[];
}

/**
 * Which roles this process runs when the API has `apiWorkers` processes (API_WORKERS): a cluster worker
 * runs only the API, the primary everything else (and forks the workers when there is more than one).
 */
export function rolesOfProcess(roles: Role[], apiWorkers: number, isWorker: boolean): { here: Role[]; apiWorkers: number } {
  if (isWorker) return { here: ['api'], apiWorkers: 0 };
  if (!roles.includes('api') || apiWorkers <= 1) return { here: roles, apiWorkers: 0 };
  return { here: roles.filter((r) => r !== 'api'), apiWorkers };
}

export async function startRoles(rt: Runtime, roles: Role[]): Promise<Stoppable[]> {
  const running: Stoppable[] = [];
  // Where the background roles' progress is written for every reader (liveness.ts): a few times per stall bound.
  if (roles.some((r) => r !== 'api')) running.push(startHeartbeats(rt.pool, Math.min(5_000, Math.max(250, Math.floor(rt.cfg.ROLE_STALL_MS / 4)))));
  const ctx = { network: rt.cfg.NETWORK, brand: rt.cfg.BRAND };
  // The chain roles append chain facts only (no replies awaited): one bus without a reply subscription,
  // shared so their appends are grouped into the same produce requests.
  const appendBus = appendOnlyBus(rt);
  if (roles.includes('deposit-watcher')) {
    running.push(await startDepositWatcher({ cfg: rt.cfg, pool: rt.pool, bus: appendBus, clock: rt.clock, reader: rt.chain.reader }));
  }
  // Chain roles for orders: they append chain facts only.
  const chainRoles = { broadcaster: startBroadcaster, confirmer: startConfirmer, scheduler: startScheduler } as const;
  for (const role of ['broadcaster', 'confirmer', 'scheduler'] as const) {
    if (roles.includes(role)) {
      running.push(await chainRoles[role]({ cfg: rt.cfg, pool: rt.pool, bus: appendBus, clock: rt.clock, reader: rt.chain.reader, chain: rt.chain }));
    }
  }
  if (roles.includes('desk-returner')) running.push(await startDeskReturner({ cfg: rt.cfg, pool: rt.pool, bus: appendBus, clock: rt.clock, reader: rt.chain.reader, writer: rt.chain.writer }));
  if (roles.includes('promo-granter')) running.push(await startPromoGranter({ cfg: rt.cfg, pool: rt.pool, bus: appendBus, clock: rt.clock, reader: rt.chain.reader, writer: rt.chain.writer }));
  if (roles.includes('promo-forward-watcher')) running.push(await startForwardWatcher({ cfg: rt.cfg, pool: rt.pool, bus: appendBus, clock: rt.clock, chain: rt.chain.trc10 }));
  if (roles.includes('reconciler')) running.push(await startReconciler({ cfg: rt.cfg, pool: rt.pool, clock: rt.clock, reader: rt.chain.reader }));
  // The retention purge (services/ops/purge.ts) rides with the reconciler: one per deployment, hourly.
  if (roles.includes('reconciler')) running.push(startPurger({ pool: rt.pool, clock: rt.clock }));
  if (roles.includes('batch-executor')) {
    // Waits for the answers of the orders it places, so its bus subscribes to replies.
    const bus = commandBusFor(rt);
    await bus.start();
    const executor = await startBatchExecutor({ cfg: rt.cfg, pool: rt.pool, bus, clock: rt.clock, chain: rt.chain.reader });
    running.push({ stop: async () => (await executor.stop(), await bus.stop()) });
  }
  if (roles.includes('subscription-watcher')) {
    running.push(await startSubscriptionWatcher({ cfg: rt.cfg, pool: rt.pool, bus: appendBus, clock: rt.clock, reader: rt.chain.reader, prices: rt.prices }));
  }
  if (roles.includes('processor')) {
    // A database `ops restore` built first applies what the log appended since, as the log decided it.
    const caughtUp = await catchUpAfterRestore(rt, (line) => logger.info(line));
    if (caughtUp !== null) logger.info({ records: caughtUp }, 'restored database caught up with the log');
    running.push(
      await startProcessor({
        log: rt.log, codec: rt.codec, pool: rt.pool, redis: rt.redis, clock: rt.clock, ctx,
        groupId: PROCESSOR_GROUP, maxBatch: rt.cfg.PROCESSOR_MAX_BATCH,
        onApplied: (partition, count) => commandsApplied.inc({ partition: String(partition) }, count),
      }),
    );
  }
  if (roles.includes('relay')) {
    running.push(await startRelay({ log: rt.log, codec: rt.codec, pool: rt.pool, onPublished: (n) => outboxPublished.inc(n) }));
  }
  if (roles.includes('dispatcher')) {
    running.push(
      await startDispatcher({
        log: rt.log, codec: rt.codec, pool: rt.pool, clock: rt.clock, secrets: webhookSecretBox(rt.cfg),
        allowPrivate: rt.cfg.WEBHOOK_ALLOW_PRIVATE_TARGETS, concurrency: rt.cfg.WEBHOOK_SEND_CONCURRENCY, perEndpoint: rt.cfg.WEBHOOK_PER_ENDPOINT_CONCURRENCY,
        userAgent: `${rt.cfg.BRAND}-webhook/1`, groupId: DISPATCHER_GROUP, maxBatch: rt.cfg.DISPATCHER_MAX_BATCH,
      }),
    );
  }
  if (roles.includes('stats')) {
    running.push(await startStatsProjection({ log: rt.log, codec: rt.codec, pool: rt.pool }));
  }
  if (roles.includes('api')) {
    const bus = commandBusFor(rt);
    await bus.start();
    // Ready only when warm: what the first requests would open on their path is opened before listening.
    await warmUpApi(rt);
    const server: Server = await new Promise((resolve) => {
      // A burst of new connections (a fleet of clients at once) waits in the kernel's queue while the process
      // is busy: room for thousands (the kernel caps it at net.core.somaxconn), not node's default 511.
      const s = createApp({ rt, bus }).listen(rt.cfg.API_PORT, rt.cfg.API_HOST, LISTEN_BACKLOG, () => resolve(s));
    });
    logger.info({ url: `http://${rt.cfg.API_HOST}:${rt.cfg.API_PORT}/v1` }, 'api listening');
    const metrics = rt.cfg.METRICS_PORT > 0 ? startMetricsServer(rt) : null;
    running.push({
      stop: async () => {
        if (metrics?.listening) await new Promise((resolve) => metrics.close(resolve));
        await new Promise((resolve) => server.close(resolve));
        await bus.stop();
      },
    });
  }
  return running;
}
