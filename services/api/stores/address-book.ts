/** The address book: at most `limit` entries per account, unique by address. */
import type { Pool } from '../../platform/db/pool';
import { withLock } from './locked';

export interface AddressBookEntry {
  id: string;
  label: string;
  address: string;
  created_at: string;
  updated_at: string;
}

const toEntry = (r: Record<string, any>): AddressBookEntry => ({
  id: r.id, label: r.label, address: r.address, created_at: r.created_at.toISOString(), updated_at: r.updated_at.toISOString(),
});

export async function listEntries(pool: Pool, accountId: string): Promise<AddressBookEntry[]> {
  const { rows } = await pool.query(
    'SELECT id, label, address, created_at, updated_at FROM address_book WHERE account_id = $1 ORDER BY created_at DESC, id DESC',
    [accountId],
  );
  return rows.map(toEntry);
}

export type SaveResult = { kind: 'created' | 'replaced'; entry: AddressBookEntry } | { kind: 'full'; used: number };

/** Replaces the label of an existing address (no slot used), or adds it when a slot is free. */
export async function saveEntry(pool: Pool, accountId: string, id: string, address: string, label: string, now: number, limit: number): Promise<SaveResult> {
  return withLock(pool, `address_book:${accountId}`, async (client) => {
    const at = new Date(now);
    const replaced = await client.query(
      'UPDATE address_book SET label = $3, updated_at = $4 WHERE account_id = $1 AND address = $2 RETURNING id, label, address, created_at, updated_at',
      [accountId, address, label, at],
    );
    if (replaced.rows[0]) return { kind: 'replaced', entry: toEntry(replaced.rows[0]) } as const;
    const { rows } = await client.query('SELECT count(*)::int AS n FROM address_book WHERE account_id = $1', [accountId]);
    if (rows[0].n >= limit) return { kind: 'full', used: rows[0].n as number } as const;
    const inserted = await client.query(
      `INSERT INTO address_book (id, account_id, address, label, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $5)
       RETURNING id, label, address, created_at, updated_at`,
      [id, accountId, address, label, at],
    );
    return { kind: 'created', entry: toEntry(inserted.rows[0]) } as const;
  });
}

export async function deleteEntry(pool: Pool, accountId: string, id: string): Promise<boolean> {
  const { rowCount } = await pool.query('DELETE FROM address_book WHERE account_id = $1 AND id = $2', [accountId, id]);
  return rowCount === 1;
}
