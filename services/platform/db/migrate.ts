/** Versioned SQL migrations under migrations/, applied by node-pg-migrate at start-up and in tests. */
import path from 'node:path';
import { runner } from 'node-pg-migrate';
import { ensureDatabase } from './databases';
import { logger } from '../logger';
import { repoRoot } from '../paths';

export async function migrate(databaseUrl: string): Promise<void> {
  await ensureDatabase(databaseUrl);
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
}
