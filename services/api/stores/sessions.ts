/** Dashboard sessions (cookie token by hash), sign-in history and the role an address holds on an account. */
import type { MemberRole } from '../auth/context';
import type { Pool } from '../../platform/db/pool';

export interface SessionRow {
  id: string;
  csrfToken: string;
  accountId: string;
  address: string;
  createdAt: number;
  expiresAt: number;
}

export async function insertSession(pool: Pool, tokenHash: string, s: SessionRow, ip: string | null): Promise<void> {
  await pool.query(
    `INSERT INTO sessions (id, token_hash, csrf_token, account_id, address, ip, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [s.id, tokenHash, s.csrfToken, s.accountId, s.address, ip, new Date(s.createdAt), new Date(s.expiresAt)],
  );
  await pool.query('INSERT INTO sign_ins (account_id, address, ip, signed_in_at) VALUES ($1, $2, $3, $4)', [s.accountId, s.address, ip, new Date(s.createdAt)]);
}

/** A live (not revoked, not expired) session by its cookie token hash. */
export async function findLiveSession(pool: Pool, tokenHash: string, now: number): Promise<SessionRow | undefined> {
  const { rows } = await pool.query(
    `SELECT id, csrf_token, account_id, address, created_at, expires_at FROM sessions
     WHERE token_hash = $1 AND revoked_at IS NULL AND expires_at > $2`,
    [tokenHash, new Date(now)],
  );
  const r = rows[0];
  return r ? { id: r.id, csrfToken: r.csrf_token, accountId: r.account_id, address: r.address, createdAt: r.created_at.getTime(), expiresAt: r.expires_at.getTime() } : undefined;
}

export async function extendSession(pool: Pool, id: string, expiresAt: number): Promise<void> {
  await pool.query('UPDATE sessions SET expires_at = $2 WHERE id = $1 AND revoked_at IS NULL', [id, new Date(expiresAt)]);
}

export async function revokeSession(pool: Pool, id: string, now: number): Promise<void> {
  await pool.query('UPDATE sessions SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL', [id, new Date(now)]);
}

/** Every session of one signer on one account. */
export async function revokeSessionsOf(pool: Pool, accountId: string, address: string, now: number): Promise<number> {
  const { rowCount } = await pool.query(
    'UPDATE sessions SET revoked_at = $3 WHERE account_id = $1 AND address = $2 AND revoked_at IS NULL',
    [accountId, address, new Date(now)],
  );
  return rowCount ?? 0;
}

export async function signInHistory(pool: Pool, accountId: string, address: string): Promise<Array<{ signed_in_at: string; ip: string | null; address: string }>> {
  const { rows } = await pool.query(
    'SELECT signed_in_at, ip, address FROM sign_ins WHERE account_id = $1 AND address = $2 ORDER BY signed_in_at DESC, id DESC LIMIT 10',
    [accountId, address],
  );
  return rows.map((r) => ({ signed_in_at: (r.signed_in_at as Date).toISOString(), ip: r.ip, address: r.address }));
}

/** The role `address` holds on the account: owner by the account's owner address, else its member row. */
export async function roleOf(pool: Pool, accountId: string, address: string): Promise<MemberRole | null> {
  const { rows } = await pool.query(
    `SELECT CASE WHEN a.owner_address = $2 THEN 'owner' ELSE m.role END AS role
     FROM accounts a LEFT JOIN account_members m ON m.account_id = a.id AND m.address = $2
     WHERE a.id = $1`,
    [accountId, address],
  );
  return (rows[0]?.role as MemberRole | null | undefined) ?? null;
}

export async function audit(pool: Pool, accountId: string, actor: string, action: string, details: Record<string, unknown> | null, now: number): Promise<void> {
  await pool.query('INSERT INTO audit_log (account_id, actor, action, details, at) VALUES ($1, $2, $3, $4, $5)', [
    accountId, actor, action, details === null ? null : JSON.stringify(details), new Date(now),
  ]);
}
