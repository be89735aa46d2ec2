/** One transaction under an advisory lock, for per-account limits checked and applied together. */
import { inTransaction, type Pool, type PoolClient } from '../../platform/db/pool';

export async function withLock<T>(pool: Pool, lockKey: string, fn: (client: PoolClient) => Promise<T>): Promise<T> {
  return inTransaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [lockKey]);
    return fn(client);
  });
}
