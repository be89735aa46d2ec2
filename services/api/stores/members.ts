/** Members other than the owner (the owner is the account's owner address). */
import type { Pool } from '../../platform/db/pool';

export interface MemberRow {
  address: string;
  role: 'editor' | 'viewer';
  addedAt: number;
}

export async function listMembers(pool: Pool, accountId: string): Promise<MemberRow[]> {
  const { rows } = await pool.query('SELECT address, role, added_at FROM account_members WHERE account_id = $1 ORDER BY added_at, address', [accountId]);
  return rows.map((r) => ({ address: r.address, role: r.role, addedAt: r.added_at.getTime() }));
}

/** Adds or changes a member's role; true when the member is new. */
export async function upsertMember(pool: Pool, accountId: string, address: string, role: MemberRow['role'], now: number): Promise<{ created: boolean; row: MemberRow }> {
  const { rows } = await pool.query(
    `INSERT INTO account_members (account_id, address, role, added_at) VALUES ($1, $2, $3, $4)
     ON CONFLICT (account_id, address) DO UPDATE SET role = EXCLUDED.role
     RETURNING address, role, added_at, (xmax = 0) AS created`,
    [accountId, address, role, new Date(now)],
  );
  const r = rows[0];
  return { created: r.created, row: { address: r.address, role: r.role, addedAt: r.added_at.getTime() } };
}

export async function deleteMember(pool: Pool, accountId: string, address: string): Promise<boolean> {
  const { rowCount } = await pool.query('DELETE FROM account_members WHERE account_id = $1 AND address = $2', [accountId, address]);
  return rowCount === 1;
}

/** Accounts where the address is a (non-owner) member. */
export async function membershipsOf(pool: Pool, address: string): Promise<string[]> {
  const { rows } = await pool.query('SELECT account_id FROM account_members WHERE address = $1 ORDER BY added_at', [address]);
  return rows.map((r) => r.account_id as string);
}
