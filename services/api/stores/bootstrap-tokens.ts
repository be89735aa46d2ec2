/** Bootstrap tokens (abt_), stored by hash. */
import type { Pool } from '../../platform/db/pool';

export interface BootstrapTokenRow {
  id: string;
  address: string;
  expiresAt: number;
}

export async function saveBootstrapToken(pool: Pool, hash: string, row: BootstrapTokenRow, now: number): Promise<void> {
  await pool.query(
    'INSERT INTO bootstrap_tokens (token_hash, id, address, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)',
    [hash, row.id, row.address, new Date(now), new Date(row.expiresAt)],
  );
}

export async function findBootstrapToken(pool: Pool, hash: string): Promise<BootstrapTokenRow | undefined> {
  const { rows } = await pool.query('SELECT id, address, expires_at FROM bootstrap_tokens WHERE token_hash = $1', [hash]);
  return rows[0] ? { id: rows[0].id, address: rows[0].address, expiresAt: (rows[0].expires_at as Date).getTime() } : undefined;
}
