/** Versioned SQL migrations under migrations/, applied by node-pg-migrate at start-up and in tests. */
import path from 'node:path';
import pg from 'pg';
import { runner } from 'node-pg-migrate';
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

/** Creates the database named in the URL when it does not exist yet (the machine's server is shared). */
export async function ensureDatabase(databaseUrl: string): Promise<void> {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.slice(1));
  url.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: url.toString() });
  await admin.connect();
  try {
    const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (rowCount === 0) {
      await admin.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`).catch((err: { code?: string }) => {
        if (err.code !== '42P04') throw err; // created concurrently by another process: fine
      });
    }
  } finally {
    await admin.end();
  }
}
