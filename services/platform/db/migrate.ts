/** Versioned SQL migrations under migrations/, applied by node-pg-migrate at start-up and in tests. */
import path from 'node:path';
import pg from 'pg';
import { ensureDatabase } from './databases';
import { logger } from '../logger';
import { repoRoot } from '../paths';

/**
 * node-pg-migrate takes a *try* lock and throws "Another migration is already running" when it is held,
 * so several roles started at once against an empty database would fail all but one. Every start waits
 * here instead (a blocking advisory lock of its own, per database); the runners then take turns, and all
 * but the first find nothing to do.
 */
const MIGRATIONS_TURN = "hashtext('energy.migrations')";

export async function migrate(databaseUrl: string): Promise<void> {
  await ensureDatabase(databaseUrl);
  const turn = new pg.Client({ connectionString: databaseUrl });
  await turn.connect();
  try {
    await turn.query(`SELECT pg_advisory_lock(${MIGRATIONS_TURN})`);
    // Loaded here, not with the module: node-pg-migrate is some 130 modules, and a process that opens databases
    // already migrated (test worlds copied from a migrated template) never needs it.
    const { runner } = await import('node-pg-migrate');
    await runner({
      databaseUrl,
      dir: path.join(repoRoot(), 'migrations'),
      direction: 'up',
      migrationsTable: 'pgmigrations',
      count: Infinity,
      singleTransaction: true,
      log: (msg) => logger.debug({ migrations: true }, msg),
      logger: { debug: () => undefined, info: () => undefined, warn: (m) => logger.warn(m), error: (m) => logger.error(m) },
    });
  } finally {
    // Ending the session releases the lock, also when the runner failed.
    await turn.end();
  }
}
