/**
 * Entry point: `node dist/services/main.js [--roles all|api,processor,relay]`.
 * Reads the config once, opens the shared connections, starts the roles, stops them on SIGTERM/SIGINT.
 *
 * With API_WORKERS > 1 and the api role asked for, the API runs in that many worker processes sharing
 * API_PORT (node cluster); every other role stays in the primary, so partition ownership and the chain
 * clients are not multiplied. A worker that dies is replaced. The workers accept their connections
 * themselves (SCHED_NONE), not through the primary: with round-robin the primary accepts every connection
 * and hands it over, and a primary busy with the pipeline's roles left new connections in the kernel's
 * queue until it overflowed (clients retrying their SYN for seconds: bench/README.md, "Stop 41").
 */
// First: the tracing SDK starts before the modules it instruments load (telemetry-start.ts).
import './platform/telemetry-start';
import cluster from 'node:cluster';
import { parseArgs } from 'node:util';
import { configureChaos } from './platform/chaos';
import { loadConfig, type Config } from './platform/config';
import { logger } from './platform/logger';
import { createRuntime } from './runtime';
import { startTelemetry, stopTelemetry } from './platform/telemetry';
import { lowerPriority } from './platform/priority';
import { configForRoles, WITHHELD_FROM_WORKERS } from './platform/role-secrets';
import { serveClusterMetrics } from './platform/cluster-metrics';
import { startMetricsServer } from './api/health';
import { onReportSignal } from './platform/slice-timing';
import { backgroundNice, parseRoles, rolesOfProcess, startRoles, type Stoppable } from './roles';

function forkApiWorkers(count: number, isStopping: () => boolean): { stop(): Promise<void> } {
  // Before the first fork (node reads it then): each worker accepts on the shared socket.
  cluster.schedulingPolicy = cluster.SCHED_NONE;
  // A worker runs the API alone: it inherits the environment without the secrets only other roles read.
  const env = Object.fromEntries(WITHHELD_FROM_WORKERS.map((name) => [name, undefined]));
  const fork = () => {
    const worker = cluster.fork(env);
    worker.on('exit', (code, signal) => {
      if (isStopping()) return;
      logger.error({ pid: worker.process.pid, code, signal }, 'api worker exited; starting another');
      setTimeout(fork, 500);
    });
  };
  for (let i = 0; i < count; i++) fork();
  return {
    stop: async () => {
      const workers = Object.values(cluster.workers ?? {}).filter((w) => w !== undefined);
      await Promise.all(workers.map((w) => new Promise<void>((resolve) => {
        if (w.isDead()) return resolve();
        w.once('exit', () => resolve());
        w.process.kill('SIGTERM');
      })));
    },
  };
}

/** Longest a stop may take before the process exits anyway (below the usual 10 to 15 s before a SIGKILL). */
const STOP_BOUND_MS = 8_000;

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { roles: { type: 'string', default: 'all' } } });
  const loaded: Config = loadConfig();
  const { here, apiWorkers } = rolesOfProcess(parseRoles(values.roles as string), loaded.API_WORKERS, cluster.isWorker);
  // Read once into the config; a process whose roles do not use the pool keys keeps none (role-secrets.ts).
  const cfg = configForRoles(loaded, here);
  for (const name of WITHHELD_FROM_WORKERS) delete process.env[name];
  logger.level = cfg.LOG_LEVEL;
  configureChaos(cfg.CHAOS_CRASH_POINTS);
  startTelemetry(cfg);
  // Background-only processes yield the CPU to the answer path (before the runtime opens its clients).
  const nice = backgroundNice(here, cfg.BACKGROUND_NICE);
  if (nice > 0) logger.info({ roles: here, nice, threads: lowerPriority(process.pid, nice) }, 'background roles: priority lowered');
  // The primary migrates before any worker starts; workers only open connections.
  // SIGUSR2 prints the timings this process keeps (the processor's slices), whatever its roles.
  onReportSignal(`roles ${here.join(',') || '(none)'}${cluster.isWorker ? ' (api worker)' : ''}`);
  const rt = await createRuntime(cfg, { migrate: !cluster.isWorker });
  const running: Stoppable[] = await startRoles(rt, here);
  let stopping = false;
  if (apiWorkers > 0) {
    // A scrape reaching any worker answers for the whole tree: every worker and the primary's roles.
    serveClusterMetrics();
    running.unshift(forkApiWorkers(apiWorkers, () => stopping));
  } else if (!here.includes('api') && cfg.METRICS_PORT > 0) {
    // Roles scaled into a process of their own (no API here or in workers) serve their metrics themselves.
    const metrics = startMetricsServer(rt);
    running.push({ stop: () => new Promise((resolve) => (metrics.listening ? metrics.close(() => resolve()) : resolve())) });
  }
  logger.info({ roles: here, apiWorkers, network: cfg.NETWORK, worker: cluster.isWorker }, 'started');

  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping');
    // Bounded: a role that does not stop in time (an HTTP keep-alive connection held open, a consumer that
    // cannot leave its group) must not keep the process until a supervisor's SIGKILL, which also loses what
    // exit writes (node --cpu-prof's profile). Exiting without a clean stop is safe: every role is crash-safe.
    setTimeout(() => {
      logger.warn({ signal, ms: STOP_BOUND_MS }, 'roles not stopped in time; exiting');
      process.exit(1);
    }, STOP_BOUND_MS).unref();
    await Promise.allSettled(running.map((r) => r.stop()));
    await rt.close();
    await stopTelemetry();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((err) => {
  logger.fatal({ err }, 'start-up failed');
  // The config error message is the whole point of failing fast: print it plainly too.
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
