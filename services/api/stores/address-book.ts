/**
 * The address book: reads only. Entries are saved and deleted by address_book.* commands the processor
 * applies (services/domain/handlers/address-book.ts), which also keeps the limit and the one entry per address.
 */
import type { Pool } from '../../platform/db/pool';

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

export async function findEntry(pool: Pool, accountId: string, id: string): Promise<AddressBookEntry | null> {
  const { rows } = await pool.query('SELECT id, label, address, created_at, updated_at FROM address_book WHERE account_id = $1 AND id = $2', [accountId, id]);
  return rows[0] ? toEntry(rows[0]) : null;
}
