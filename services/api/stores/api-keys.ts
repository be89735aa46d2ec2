/** API keys: scopes and the AES-GCM sealed secret. */
import type { ApiKeyScope } from '../auth/context';
import type { Pool } from '../../platform/db/pool';

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

// Issue and revoke are commands applied by the processor (services/processor/api-key-store.ts).

export async function touchApiKey(pool: Pool, id: string, now: number): Promise<void> {
  await pool.query('UPDATE api_keys SET last_used_at = $2 WHERE id = $1', [id, new Date(now)]);
}
