/**
 * Stake the orders hold on chain, per pool address, receiver and resource, read from the orders the
 * processor keeps: the landed delegations of delivered orders (confirmed, active), and of orders that ended
 * with their money back (refunded, failed) until the scheduler has taken that stake back (closesAfterEnd:
 * a refunded order's at its expiry, a failed one's at once). The confirmer checks
 * the chain covers it before it confirms; the scheduler subtracts what other orders hold before it signs
 * an undelegation; the reconciler compares it with the chain.
 */
import type { ChainResource } from '../chain/writes';
import type { Pool } from '../platform/db/pool';

export const stakeKey = (from: string, receiver: string, resource: ChainResource | string) => `${from}|${receiver}|${resource}`;

export interface OpenStakeQuery {
  /** Only these receivers (all when absent). */
  receivers?: string[];
  /** Leave this order out. */
  excludeOrder?: string;
  /** Leave out orders on their way out at this time: expired, reclaim asked, undelegations stored, or failed. */
  leavingAt?: number;
}

/**
 * The orders `order_stake` counts, and when each leaves (NULL for the others, which the index leaves out: the
 * statistics orders_leaving need it). Both word for word as in migrations/1764500000000_order-stake.sql (the
 * index orders_holding and those statistics), so the planner reads the leaving orders from the index and
 * knows how few they are.
 */
const HOLDING = `o.resource <> 'activation' AND (o.status IN ('confirmed', 'active') OR (o.status IN ('refunded', 'failed') AND o.reclaimed_at IS NULL
      AND (o.allocations @> '[{"kind": "delegate", "landed": true}]'::jsonb OR o.allocations @> '[{"kind": "delegate", "stranded": true}]'::jsonb)))`;
/** What the stake of a left-out order is read from (UNION: an order both leaving and left out counts once). */
const GONE = 'o.id, o.receiver, o.resource, o.allocations';
const LEAVES_AT = `(CASE WHEN NOT (${HOLDING}) THEN NULL
    WHEN o.undelegations <> '[]'::jsonb OR o.close_reason IS NOT NULL OR o.status = 'failed' THEN '-infinity'::timestamptz
    ELSE o.expires_at END)`;

/**
 * Sum of landed delegations of delivered orders, per stakeKey(from, receiver, ENERGY|BANDWIDTH) (keys whose sum
 * is zero may be absent). Read from `order_stake`, which the processor keeps (the stake every order holds), less
 * the stake of the orders left out: those of the receivers asked that leave by `leavingAt` (a range of the index
 * orders_holding per receiver) and `excludeOrder`. One statement, so both sides are read in one snapshot. The
 * cost grows with the keys asked and the orders leaving, not with the orders that stay.
 */
export async function openStake(pool: Pool, q: OpenStakeQuery = {}): Promise<Map<string, bigint>> {
  const params: unknown[] = [];
  const param = (value: unknown, type: string) => `$${params.push(value)}::${type}`;
  const receivers = q.receivers === undefined ? null : param(q.receivers, 'text[]');
  const ofReceivers = (column: string) => (receivers === null ? '' : ` AND ${column} = ANY(${receivers})`);
  const leaving: string[] = [];
  if (q.leavingAt !== undefined) leaving.push(`SELECT ${GONE} FROM orders o WHERE ${HOLDING}${ofReceivers('o.receiver')} AND ${LEAVES_AT} <= ${param(new Date(q.leavingAt), 'timestamptz')}`);
  if (q.excludeOrder !== undefined) leaving.push(`SELECT ${GONE} FROM orders o WHERE o.id = ${param(q.excludeOrder, 'text')} AND ${HOLDING}${ofReceivers('o.receiver')}`);
  const held = `SELECT s.pool_address, s.receiver, s.resource, s.sun FROM order_stake s WHERE true${ofReceivers('s.receiver')}`;
  const sql = leaving.length === 0
    ? `SELECT pool_address AS "from", receiver, resource, sun::text AS sun FROM (${held}) h`
    : `WITH gone AS (${leaving.join(' UNION ')}),
            lost AS (
              SELECT a ->> 'from' AS pool_address, g.receiver, CASE WHEN g.resource = 'bandwidth' THEN 'BANDWIDTH' ELSE 'ENERGY' END AS resource,
                     sum((a ->> 'sun')::numeric) AS sun
                FROM gone g CROSS JOIN LATERAL jsonb_array_elements(g.allocations) AS a
               WHERE a ->> 'kind' = 'delegate' AND ((a ->> 'landed')::boolean IS TRUE OR (a ->> 'stranded')::boolean IS TRUE)
               GROUP BY 1, 2, 3)
       SELECT h.pool_address AS "from", h.receiver, h.resource, (h.sun - COALESCE(l.sun, 0))::text AS sun
         FROM (${held}) h LEFT JOIN lost l ON l.receiver = h.receiver AND l.pool_address = h.pool_address AND l.resource = h.resource
        WHERE h.sun - COALESCE(l.sun, 0) <> 0`;
  const { rows } = await pool.query(sql, params);
  return new Map(rows.map((r: { receiver: string; resource: string; from: string; sun: string }) => [stakeKey(r.from, r.receiver, r.resource), BigInt(r.sun)]));
}
