/**
 * The reconciler's reads of the orders' stake (services/reconciler/): what is in flight, what closed
 * orders held, which open orders hold a receiver's stake, and closed orders whose delegation another
 * order stored.
 */
import { inDeliverySql } from '../domain/orders/rules';
import type { Pool } from '../platform/db/pool';
import { stakeKey } from './open-stake';

/** Stake in flight per stakeKey: stored delegations that may land, stake of closing orders that may have left. */
export async function stakeInFlight(pool: Pool): Promise<{ adding: Map<string, bigint>; removing: Map<string, bigint> }> {
  const { rows } = await pool.query(
    `SELECT 'adding' AS side, o.receiver, o.resource, a ->> 'from' AS "from", sum((a ->> 'sun')::numeric)::text AS sun
       FROM orders o CROSS JOIN LATERAL jsonb_array_elements(o.allocations) AS a
      WHERE ${inDeliverySql('o.')} AND a ->> 'kind' = 'delegate' AND ((a ->> 'landed') IS NULL OR (a ->> 'landed')::boolean)
      GROUP BY 1, 2, 3, 4
     UNION ALL
     -- A set stored and not applied yet: the broadcaster may send it before the processor applies it
     -- (Broadcaster.sendAhead), so it may land while the order still names no allocation.
     SELECT 'adding', o.receiver, o.resource, a ->> 'from', sum((a ->> 'sun')::numeric)::text
       FROM orders o JOIN order_signatures s ON s.order_id = o.id AND s.purpose = 'allocate'
            CROSS JOIN LATERAL jsonb_array_elements(s.command::jsonb -> 'txs') AS a
      WHERE ${inDeliverySql('o.')} AND o.allocations = '[]'::jsonb AND a ->> 'kind' = 'delegate'
      GROUP BY 1, 2, 3, 4
     UNION ALL
     -- Orders on their way out (undelegations stored; a failed one's stake is taken back at once): any of
     -- their stake may already be gone, what their undelegations took and what was missing before alike.
     SELECT 'removing', o.receiver, o.resource, a ->> 'from', sum((a ->> 'sun')::numeric)::text
       FROM orders o CROSS JOIN LATERAL jsonb_array_elements(o.allocations) AS a
      WHERE a ->> 'kind' = 'delegate' AND ((a ->> 'landed')::boolean IS TRUE OR (a ->> 'stranded')::boolean IS TRUE)
        AND ((o.status IN ('confirmed', 'active') AND o.undelegations <> '[]'::jsonb)
             OR (o.status IN ('refunded', 'failed') AND o.reclaimed_at IS NULL AND (o.undelegations <> '[]'::jsonb OR o.status = 'failed')))
      GROUP BY 1, 2, 3, 4`,
  );
  const adding = new Map<string, bigint>();
  const removing = new Map<string, bigint>();
  for (const r of rows as Array<{ side: string; receiver: string; resource: string; from: string; sun: string }>) {
    const key = stakeKey(r.from, r.receiver, r.resource === 'bandwidth' ? 'BANDWIDTH' : 'ENERGY');
    const side = r.side === 'adding' ? adding : removing;
    side.set(key, (side.get(key) ?? 0n) + BigInt(r.sun));
  }
  return { adding, removing };
}

/** Closed orders (expired, reclaimed, failed, refunded) per pool address and receiver, for the notes of leak rows. */
export async function closedOrdersByPoolAndReceiver(pool: Pool, receivers: string[]): Promise<Map<string, string[]>> {
  if (receivers.length === 0) return new Map();
  const { rows } = await pool.query(
    `SELECT DISTINCT o.id, o.receiver, a ->> 'from' AS "from"
       FROM orders o CROSS JOIN LATERAL jsonb_array_elements(o.allocations) AS a
      WHERE o.receiver = ANY($1::text[]) AND o.status IN ('expired', 'reclaimed', 'refunded')
        AND a ->> 'kind' = 'delegate' AND (a ->> 'landed')::boolean IS TRUE`,
    [receivers],
  );
  const out = new Map<string, string[]>();
  for (const r of rows as Array<{ id: string; receiver: string; from: string }>) {
    const key = `${r.from}|${r.receiver}`;
    out.set(key, [...(out.get(key) ?? []), r.id]);
  }
  return out;
}

export interface OpenOrder {
  id: string;
  accountId: string;
  expiresAt: number | null;
  sun: bigint;
}

export async function openOrdersOf(pool: Pool, from: string, receiver: string, resource: string): Promise<OpenOrder[]> {
  const { rows } = await pool.query(
    `SELECT o.id, o.account_id, o.expires_at, sum((a ->> 'sun')::numeric)::text AS sun
       FROM orders o CROSS JOIN LATERAL jsonb_array_elements(o.allocations) AS a
      WHERE o.receiver = $1 AND o.status IN ('confirmed', 'active') AND a ->> 'kind' = 'delegate' AND (a ->> 'landed')::boolean IS TRUE
        AND a ->> 'from' = $2 AND (CASE WHEN o.resource = 'bandwidth' THEN 'BANDWIDTH' ELSE 'ENERGY' END) = $3
      GROUP BY 1, 2, 3 ORDER BY o.expires_at DESC NULLS FIRST`,
    [receiver, from, resource],
  );
  return rows.map((r: any) => ({ id: r.id, accountId: r.account_id, expiresAt: r.expires_at ? new Date(r.expires_at).getTime() : null, sun: BigInt(r.sun) }));
}

/** Closed orders whose landed delegation is a transaction another order stored: they never delivered. */
export async function closedTwins(pool: Pool): Promise<Array<{ id: string; accountId: string }>> {
  const { rows } = await pool.query(
    `SELECT DISTINCT o.id, o.account_id
       FROM orders o CROSS JOIN LATERAL jsonb_array_elements(o.allocations) AS a
       JOIN order_tx_ids t ON t.tx_id = a ->> 'txId'
      WHERE o.status IN ('expired', 'reclaimed') AND a ->> 'kind' = 'delegate' AND (a ->> 'landed')::boolean IS TRUE AND t.order_id <> o.id`,
  );
  return rows.map((r: any) => ({ id: r.id, accountId: r.account_id }));
}

