/** Reads of the processor-owned accounts table (the API never writes it: changes are commands). */
import type { Account } from '../../domain/account';
import { derivedId } from '../../domain/ids';
import type { Pool } from '../../platform/db/pool';
import { accountColumns, accountFromRow } from '../../processor/account-rows';

/** The one account an address owns on this brand and network: its id derives from those three. */
export function accountIdFor(brand: string, network: string, ownerAddress: string): string {
  return derivedId('account', brand, network, ownerAddress);
}

export async function loadAccount(pool: Pool, id: string): Promise<Account | undefined> {
  const { rows } = await pool.query(`SELECT ${accountColumns.join(', ')} FROM accounts WHERE id = $1`, [id]);
  return rows[0] ? accountFromRow(rows[0]) : undefined;
}

export async function nextDepositIndex(pool: Pool): Promise<number> {
  const { rows } = await pool.query("SELECT nextval('deposit_address_index_seq')::int AS n");
  return rows[0].n as number;
}
