/** Named reads of desk_payments (written only by the processor): the returner's work list, the API's lookup, ops lists. */
import type { DeskPayment, DeskPaymentStatus } from '../domain/desk/rules';
import type { Pool } from '../platform/db/pool';
import { deskPaymentColumns, deskPaymentFromRow } from './rows';

const selected = deskPaymentColumns.join(', ');

/** Payments refused and not yet returned, oldest first. Bounded: `limit` rows a pass. */
export async function returningPayments(pool: Pool, limit: number): Promise<DeskPayment[]> {
  const { rows } = await pool.query(`SELECT ${selected} FROM desk_payments WHERE status = 'returning' ORDER BY created_at, payment_id LIMIT $1`, [limit]);
  return rows.map(deskPaymentFromRow);
}

/** The TRX payment of a transaction (a plain transfer's receipt id is its txid), if the desk saw it confirmed. */
export async function paymentByTxid(pool: Pool, txid: string): Promise<DeskPayment | undefined> {
  const { rows } = await pool.query(`SELECT ${selected} FROM desk_payments WHERE payment_id = $1`, [txid]);
  return rows[0] ? deskPaymentFromRow(rows[0]) : undefined;
}

/** Newest first, for ops: every payment, or those of some statuses. Bounded by `limit`. */
export async function listPayments(pool: Pool, statuses: DeskPaymentStatus[] | null, limit: number): Promise<DeskPayment[]> {
  const { rows } = await pool.query(
    `SELECT ${selected} FROM desk_payments WHERE ($1::text[] IS NULL OR status = ANY($1::text[])) ORDER BY created_at DESC, payment_id LIMIT $2`,
    [statuses, limit],
  );
  return rows.map(deskPaymentFromRow);
}
