/**
 * Test databases dropped at the end of the jest run instead of one by one as each world ends.
 *
 * PostgreSQL 15 forces an immediate checkpoint in every DROP DATABASE (pg_stat_bgwriter.checkpoints_req counts
 * one per drop): every dirty buffer of every database on the server is written and synced, and the next write
 * to each page logs the whole page again. A world dropped two databases (its own and its replay's), so a CI
 * run forced a checkpoint every second or two while the other files' worlds worked, and each drop waited for
 * it. Under jest (global-setup.ts sets TEST_RETIRE_DATABASES), a world's database is instead closed to
 * connections and renamed `<base>_retired_<random>`, a catalog update; global-teardown.ts drops every retired
 * database at the end of the run, many at once, so their checkpoints coincide. Nothing is left behind after a
 * run; a run killed midway leaves its retired databases to the next run's teardown.
 */
import { randomBytes } from 'node:crypto';
import { dropDatabase, quoteIdent, withServer } from '../../services/platform/db/databases';

export const RETIRE_ENV = 'TEST_RETIRE_DATABASES';

/** `<base>_retired_`: base is the test profile's database name (DATABASE_URL's path). */
export function retiredPrefix(databaseUrl: string): string {
  return `${decodeURIComponent(new URL(databaseUrl).pathname.slice(1))}_retired_`;
}

const OBJECT_IN_USE = '55006';

/** Drops the database now, or (under jest) retires it for the run's teardown to drop. Absent: nothing to do. */
export async function dropOrRetire(databaseUrl: string): Promise<void> {
  // Only on the shared test server, the one the teardown cleans (a private server of an outage test goes whole).
  const shared = process.env.DATABASE_URL;
  if (process.env[RETIRE_ENV] !== '1' || !shared || new URL(shared).host !== new URL(databaseUrl).host) return dropDatabase(databaseUrl);
  const retired = `${retiredPrefix(shared)}${randomBytes(6).toString('hex')}`;
  const renamed = await withServer(databaseUrl, async (admin, quoted, name) => {
    const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (rowCount === 0) return true;
    // No new sessions, the open ones ended (as DROP ... WITH (FORCE) would), then the rename, which needs it alone.
    await admin.query(`ALTER DATABASE ${quoted} ALLOW_CONNECTIONS false`);
    for (let attempt = 1; attempt <= 50; attempt++) {
      await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [name]);
      try {
        await admin.query(`ALTER DATABASE ${quoted} RENAME TO ${quoteIdent(retired)}`);
        return true;
      } catch (err) {
        if ((err as { code?: string }).code !== OBJECT_IN_USE) throw err;
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    return false;
  });
  if (!renamed) await dropDatabase(databaseUrl);
}

const WAVE = 32;

/** Drops every retired database (global-teardown.ts), many at once, so that their forced checkpoints coincide. */
export async function dropRetired(databaseUrl: string): Promise<number> {
  const prefix = retiredPrefix(databaseUrl);
  const names = await withServer(databaseUrl, async (admin) => {
    const { rows } = await admin.query<{ datname: string }>(
      "SELECT datname FROM pg_database WHERE starts_with(datname, $1) AND datname ~ '_retired_[0-9a-f]{12}$'",
      [prefix],
    );
    return rows.map((r) => r.datname);
  });
  // In waves of up to 32 side by side (the server's connection limit is shared): drops that start together share
  // their checkpoints (measured: 24 at once forced 2 checkpoints in about 1 s, 8 at a time 12 in 12-16 s, one by one
  // 24 in 32-35 s, on a loaded machine).
  for (let i = 0; i < names.length; i += WAVE) {
    await Promise.all(
      names.slice(i, i + WAVE).map(async (name) => {
        const url = new URL(databaseUrl);
        url.pathname = `/${encodeURIComponent(name)}`;
        // Two jest runs side by side (make test's phase 2) may both drop it: IF EXISTS, and a lost race is fine.
        await dropDatabase(url.toString()).catch((err: { code?: string }) => {
          if (err.code !== '3D000' && err.code !== OBJECT_IN_USE) throw err;
        });
      }),
    );
  }
  return names.length;
}
