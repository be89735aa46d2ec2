/**
 * Entry point: `node dist/services/main.js [--roles all|api,processor,relay]`.
 * Reads the config once, opens the shared connections, starts the roles, stops them on SIGTERM/SIGINT.
 */
import { parseArgs } from 'node:util';
import { configureChaos } from './platform/chaos';
import { loadConfig } from './platform/config';
import { logger } from './platform/logger';
import { createRuntime } from './platform/runtime';
import { startTelemetry, stopTelemetry } from './platform/telemetry';
import { parseRoles, startRoles } from './roles';

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { roles: { type: 'string', default: 'all' } } });
  const cfg = loadConfig();
  logger.level = cfg.LOG_LEVEL;
  configureChaos(cfg.CHAOS_CRASH_POINTS);
  startTelemetry(cfg);
  const roles = parseRoles(values.roles as string);
  const rt = await createRuntime(cfg);
  const running = await startRoles(rt, roles);
  logger.info({ roles, network: cfg.NETWORK }, 'started');

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping');
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
