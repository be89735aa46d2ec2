/**
 * The first contact with PostgreSQL at start-up, on its own connection: a refused TLS handshake (an untrusted
 * certificate, a host name the certificate does not name) or a wrong password fails the start here with a
 * message that names the connection, instead of surfacing later as a bare error from whichever query ran first.
 */
import pg from 'pg';

/** host:port/database of a connection URL, without its credentials (for messages). */
export function databaseTarget(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  return `${url.hostname}:${url.port || '5432'}${url.pathname}`;
}

export async function reachDatabase(databaseUrl: string, timeoutMs = 10_000): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: timeoutMs });
  // A connection that breaks after the answer must not throw outside this function.
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
  } catch (err) {
    // The server answered and accepted the credentials; the database itself is created by the migration.
    if ((err as { code?: string }).code === '3D000') return;
    throw new Error(`PostgreSQL at ${databaseTarget(databaseUrl)} (DATABASE_URL): ${(err as Error).message}`);
  } finally {
    await client.end().catch(() => undefined);
  }
}
