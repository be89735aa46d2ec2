/** API keys: scopes and the AES-GCM sealed secret. */
import type { ApiKeyScope } from '../auth/context';
import type { Pool } from '../../platform/db/pool';
import { withLock } from './locked';

export interface ApiKeyRow {
  id: string;
  accountId: string;
  name: string | null;
  scopes: ApiKeyScope[];
  secretEnc: string;
  createdAt: number;
  lastUsedAt: number | null;
  revokedAt: number | null;
}

/** Associated data binding a sealed API-key secret to its row. */
export const apiKeyContext = (id: string) => `api_key:${id}`;

const columns = 'id, account_id, name, scopes, secret_enc, created_at, last_used_at, revoked_at';

const ms = (d: Date | null) => (d === null ? null : d.getTime());

function fromRow(r: Record<string, any>): ApiKeyRow {
  return {
    id: r.id, accountId: r.account_id, name: r.name, scopes: r.scopes, secretEnc: r.secret_enc,
    createdAt: r.created_at.getTime(), lastUsedAt: ms(r.last_used_at), revokedAt: ms(r.revoked_at),
  };
}

export async function findApiKey(pool: Pool, id: string): Promise<ApiKeyRow | undefined> {
  const { rows } = await pool.query(`SELECT ${columns} FROM api_keys WHERE id = $1`, [id]);
  return rows[0] ? fromRow(rows[0]) : undefined;
}

export async function listApiKeys(pool: Pool, accountId: string): Promise<ApiKeyRow[]> {
  const { rows } = await pool.query(`SELECT ${columns} FROM api_keys WHERE account_id = $1 AND revoked_at IS NULL ORDER BY created_at DESC, id`, [accountId]);
  return rows.map(fromRow);
}

/** Inserts the key unless the account already has `max` active keys (checked under an account lock). */
export async function insertApiKey(pool: Pool, row: ApiKeyRow, max: number): Promise<boolean> {
  return withLock(pool, `api_keys:${row.accountId}`, async (client) => {
    const { rows } = await client.query('SELECT count(*)::int AS n FROM api_keys WHERE account_id = $1 AND revoked_at IS NULL', [row.accountId]);
    if (rows[0].n >= max) return false;
    await client.query(
      'INSERT INTO api_keys (id, account_id, name, scopes, secret_enc, created_at) VALUES ($1, $2, $3, $4, $5, $6)',
      [row.id, row.accountId, row.name, row.scopes, row.secretEnc, new Date(row.createdAt)],
    );
    return true;
  });
}

export async function revokeApiKey(pool: Pool, accountId: string, id: string, now: number): Promise<boolean> {
  const { rowCount } = await pool.query(
    'UPDATE api_keys SET revoked_at = $3 WHERE id = $1 AND account_id = $2 AND revoked_at IS NULL',
    [id, accountId, new Date(now)],
  );
  return rowCount === 1;
}

export async function touchApiKey(pool: Pool, id: string, now: number): Promise<void> {
  await pool.query('UPDATE api_keys SET last_used_at = $2 WHERE id = $1', [id, new Date(now)]);
}
