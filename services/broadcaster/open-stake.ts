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

/** Sum of landed delegations of delivered orders, per stakeKey(from, receiver, ENERGY|BANDWIDTH). */
export async function openStake(pool: Pool, q: OpenStakeQuery = {}): Promise<Map<string, bigint>> {
  const { rows } = await pool.query(
    `SELECT o.receiver, CASE WHEN o.resource = 'bandwidth' THEN 'BANDWIDTH' ELSE 'ENERGY' END AS resource,
            a ->> 'from' AS "from", sum((a ->> 'sun')::numeric)::text AS sun
       FROM orders o CROSS JOIN LATERAL jsonb_array_elements(o.allocations) AS a
      WHERE (o.status IN ('confirmed', 'active') OR (o.status IN ('refunded', 'failed') AND o.reclaimed_at IS NULL))
        AND o.resource <> 'activation'
        AND a ->> 'kind' = 'delegate' AND ((a ->> 'landed')::boolean IS TRUE OR (a ->> 'stranded')::boolean IS TRUE)
        AND ($1::text[] IS NULL OR o.receiver = ANY($1::text[]))
        AND ($2::text IS NULL OR o.id <> $2)
        AND ($3::timestamptz IS NULL OR (o.undelegations = '[]'::jsonb AND o.close_reason IS NULL AND o.status <> 'failed' AND (o.expires_at IS NULL OR o.expires_at > $3)))
      GROUP BY 1, 2, 3`,
    [q.receivers ?? null, q.excludeOrder ?? null, q.leavingAt === undefined ? null : new Date(q.leavingAt)],
  );
  return new Map(rows.map((r: { receiver: string; resource: string; from: string; sun: string }) => [stakeKey(r.from, r.receiver, r.resource), BigInt(r.sun)]));
}
