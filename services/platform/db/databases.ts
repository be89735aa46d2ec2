/**
 * Creating and dropping whole databases (start-up on a shared server, replay, test worlds). These talk to
 * the server's `postgres` database with the credentials of the given URL.
 */
import pg from 'pg';

/** A database name as an SQL identifier. */
export const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** Runs `fn` on a connection to the server's `postgres` database, with the URL's database name (quoted and as is). */
export async function withServer<T>(databaseUrl: string, fn: (admin: pg.Client, quotedName: string, name: string) => Promise<T>): Promise<T> {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.slice(1));
  url.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: url.toString() });
  await admin.connect();
  try {
    return await fn(admin, quoteIdent(name), name);
  } finally {
    await admin.end();
  }
}

/** Creates the database named in the URL when it does not exist yet. */
export async function ensureDatabase(databaseUrl: string): Promise<void> {
  await withServer(databaseUrl, async (admin, quoted, name) => {
    const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (rowCount !== 0) return;
    await admin.query(`CREATE DATABASE ${quoted}`).catch((err: { code?: string }) => {
      // Created concurrently by another process: fine. PostgreSQL says so with 42P04, or with a unique
      // violation on pg_database's name index (23505) when both CREATE DATABASE ran at the same moment.
      if (err.code !== '42P04' && err.code !== '23505') throw err;
    });
  });
}

/** Drops the database named in the URL, closing its connections. */
export async function dropDatabase(databaseUrl: string): Promise<void> {
  await withServer(databaseUrl, (admin, quoted) => admin.query(`DROP DATABASE IF EXISTS ${quoted} WITH (FORCE)`).then(() => undefined));
}
