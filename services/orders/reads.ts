/**
 * Named reads of the orders table for the roles outside the processor (batches, subscriptions, promo,
 * dispatcher, ops). Only the processor writes the table.
 */
import { awaitingDeliverySql, inDeliverySql, type Order } from '../domain/orders/rules';
import { VOLUME_WINDOW_DAYS } from '../domain/routing-fee';
import type { Pool } from '../platform/db/pool';
import { orderColumns, orderFromRow } from './rows';

type Queryable = Pick<Pool, 'query'>;
const DAY_MS = 86_400_000;

/** The given orders, by id (any account: the caller scopes them). */
export async function ordersById(db: Queryable, orderIds: readonly string[]): Promise<Map<string, Order>> {
  const out = new Map<string, Order>();
  if (orderIds.length === 0) return out;
  const { rows } = await db.query(`SELECT ${orderColumns.join(', ')} FROM orders WHERE id = ANY($1::text[])`, [orderIds]);
  for (const r of rows) out.set(r.id, orderFromRow(r));
  return out;
}

/** The account an order belongs to, or null when there is no such order. */
export async function accountOfOrder(db: Queryable, orderId: string): Promise<string | null> {
  const { rows } = await db.query('SELECT account_id FROM orders WHERE id = $1', [orderId]);
  return rows[0]?.account_id ?? null;
}

/** The tier of each given order (null for activations). */
export async function tiersOfOrders(db: Queryable, orderIds: readonly string[]): Promise<Map<string, string | null>> {
  if (orderIds.length === 0) return new Map();
  const { rows } = await db.query('SELECT id, tier FROM orders WHERE id = ANY($1::text[])', [orderIds]);
  return new Map(rows.map((r: { id: string; tier: string | null }) => [r.id, r.tier]));
}

/** What the batch executor's pacing gates read: orders in the delivery roles' hands and when the oldest was placed (clock ms). */
export interface OpenOrders {
  count: number;
  oldestAt: number | null;
}

export async function openOrders(pool: Pick<Pool, 'query'>): Promise<OpenOrders> {
  // orders_allocating indexes exactly these statuses by created_at.
  const { rows } = await pool.query(`SELECT count(*)::int AS n, min(created_at) AS oldest FROM orders WHERE ${inDeliverySql()}`);
  return { count: rows[0].n, oldestAt: rows[0].oldest === null ? null : rows[0].oldest.getTime() };
}

/** Pay amounts of the account's delivered orders created in the window, less what was refunded. */
export async function chargedVolumeSun(db: Queryable, accountId: string, at: number): Promise<bigint> {
  const { rows } = await db.query(
    `SELECT COALESCE(sum(pay_amount_sun - refunded_amount_sun), 0)::text AS v FROM orders
     WHERE account_id = $1 AND created_at >= $2 AND created_at <= $3 AND status IN ('confirmed', 'active', 'expired', 'reclaimed')`,
    [accountId, new Date(at - VOLUME_WINDOW_DAYS * DAY_MS), new Date(at)],
  );
  return BigInt(rows[0].v);
}

/** Of the given open batches, those with no order still awaiting delivery (orders_batch index). */
export async function batchesWithOrdersSettled(db: Queryable, batchIds: readonly string[]): Promise<Set<string>> {
  if (batchIds.length === 0) return new Set();
  const { rows } = await db.query(
    `SELECT id FROM batches WHERE id = ANY($1::text[]) AND finished_at IS NULL
       AND NOT EXISTS (SELECT 1 FROM orders o WHERE o.batch_id = batches.id AND ${awaitingDeliverySql('o.')})`,
    [batchIds],
  );
  return new Set(rows.map((r: { id: string }) => r.id));
}

/**
 * Plan days to take back: every delivered, not yet closed day of a plan paused or ended (the close asked
 * when it stopped may have found the day not delivered yet), and a plan's earlier day once its current day
 * is delivered (renewal takes the previous day back only then, so the receiver is never left without one).
 */
export async function plansToUndelegate(db: Queryable): Promise<Array<{ accountId: string; orderId: string }>> {
  const { rows } = await db.query(
    `SELECT o.account_id, o.id AS order_id FROM subscriptions s
       JOIN orders o ON o.subscription_id = s.id
       LEFT JOIN orders cur ON cur.id = s.last_order_id
     WHERE s.kind = 'plan' AND o.status IN ('confirmed', 'active') AND o.close_reason IS NULL
       AND (s.status IN ('paused', 'ended') OR (o.id <> s.last_order_id AND cur.status IN ('confirmed', 'active')))`,
  );
  return rows.map((r) => ({ accountId: r.account_id, orderId: r.order_id }));
}
