/**
 * Members other than the owner (the owner is the account's owner address). Reads only: members are
 * added, re-roled and removed by member.* commands the processor applies (services/domain/handlers/members.ts).
 */
import type { Pool } from '../../platform/db/pool';

export interface MemberRow {
  address: string;
  role: 'editor' | 'viewer';
  addedAt: number;
}

const toRow = (r: Record<string, any>): MemberRow => ({ address: r.address, role: r.role, addedAt: r.added_at.getTime() });

export async function listMembers(pool: Pool, accountId: string): Promise<MemberRow[]> {
  const { rows } = await pool.query('SELECT address, role, added_at FROM account_members WHERE account_id = $1 ORDER BY added_at, address', [accountId]);
  return rows.map(toRow);
}

export async function findMember(pool: Pool, accountId: string, address: string): Promise<MemberRow | null> {
  const { rows } = await pool.query('SELECT address, role, added_at FROM account_members WHERE account_id = $1 AND address = $2', [accountId, address]);
  return rows[0] ? toRow(rows[0]) : null;
}

/** Accounts where the address is a (non-owner) member. */
export async function membershipsOf(pool: Pool, address: string): Promise<string[]> {
  const { rows } = await pool.query('SELECT account_id FROM account_members WHERE address = $1 ORDER BY added_at', [address]);
  return rows.map((r) => r.account_id as string);
}
