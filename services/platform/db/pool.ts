import pg from 'pg';
import { parseJson } from '../json';

// int8 and json columns keep int64 exact: bigint for int8, lossless numbers inside jsonb.
pg.types.setTypeParser(pg.types.builtins.INT8, (text) => BigInt(text));
pg.types.setTypeParser(pg.types.builtins.JSONB, (text) => parseJson(text));
pg.types.setTypeParser(pg.types.builtins.JSON, (text) => parseJson(text));

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;

export function createPool(databaseUrl: string, max = 10): pg.Pool {
  const pool = new pg.Pool({ connectionString: databaseUrl, max, application_name: 'energy-rental' });
  // An idle client's error (server restart) must not crash the process; the next query reconnects.
  pool.on('error', () => undefined);
  return pool;
}

/** Runs `fn` in one transaction; rolls back on any error and rethrows it. */
export async function inTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
