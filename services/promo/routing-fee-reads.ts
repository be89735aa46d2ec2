/**
 * What the routing fee of an account's order depends on, read at the edge (the API and the batch
 * executor price orders): the account's charged volume of the last 30 days and the dev codes it entered.
 * The rule itself is services/domain/routing-fee.ts.
 */
import type { Pool } from '../platform/db/pool';
import { chargedVolumeSun } from '../orders/reads';
import { routingFeeBps, routingFeeSun, type EnteredCode, type RoutingFee, type RoutingFeeTable } from '../domain/routing-fee';
import type { Supplier } from '../domain/orders/rules';

type Queryable = Pick<Pool, 'query'>;

/** The lowest-rate dev code the account entered that is still in force at `at`, or null. */
export async function enteredCode(db: Queryable, accountId: string, at: number): Promise<EnteredCode | null> {
  const { rows } = await db.query(
    `SELECT fee_bps, duration_days, entered_at FROM promo_dev_codes
     WHERE entered_account_id = $1 AND entered_at <= $2 AND entered_at + duration_days * interval '1 day' > $2
     ORDER BY fee_bps LIMIT 1`,
    [accountId, new Date(at)],
  );
  return rows[0] ? { feeBps: rows[0].fee_bps, durationDays: rows[0].duration_days, enteredAt: new Date(rows[0].entered_at).getTime() } : null;
}

export interface RoutedCharge extends RoutingFee {
  feeSun: bigint;
}

/** The fee on `baseSun` (the resource's pay amount) of an order the account places at `at` with `supplier`. */
export async function routingFeeFor(
  db: Queryable, table: RoutingFeeTable, supplier: Supplier, accountId: string, baseSun: bigint, at: number,
): Promise<RoutedCharge> {
  if (supplier !== 'provider' || baseSun === 0n) return { bps: 0, source: 'none', feeSun: 0n };
  const [volume, code] = await Promise.all([chargedVolumeSun(db, accountId, at), enteredCode(db, accountId, at)]);
  const fee = routingFeeBps(supplier, table, volume, code, at);
  return { ...fee, feeSun: routingFeeSun(baseSun, fee.bps) };
}
