/**
 * The orders' stake check: per pool address, receiver and resource, the stake delegated on chain
 * (getdelegatedresourcev2) against what the orders hold there (openStake: landed delegations of confirmed
 * and active orders, and of refunded or failed ones until their stake is taken back). Pairs come from both sides: every receiver a pool address delegates to on chain
 * (getdelegatedresourceaccountindexv2) and every receiver of an open order, so stake delegated to a
 * receiver no order names (a leak, e.g. an expired order's stake never taken back) is found too.
 *
 * In flight (not a finding): delegations stored for orders still allocating (applied or not) may add stake; the stake of
 * closing orders (undelegations stored, or failed) may already be gone.
 */
import { ChainReader } from '../chain/reads';
import type { Pool } from '../platform/db/pool';
import { openStake, stakeKey } from '../orders/open-stake';
import type { ReconcileCheck, ReconcileRow } from './check';

const RESOURCES = ['ENERGY', 'BANDWIDTH'] as const;

/** Concurrent chain reads per pass. */
const READS_AT_ONCE = 64;

/** Stake in flight per stakeKey: stored delegations that may land, stake of closing orders that may have left. */
async function inFlight(pool: Pool): Promise<{ adding: Map<string, bigint>; removing: Map<string, bigint> }> {
  const { rows } = await pool.query(
    `SELECT 'adding' AS side, o.receiver, o.resource, a ->> 'from' AS "from", sum((a ->> 'sun')::numeric)::text AS sun
       FROM orders o CROSS JOIN LATERAL jsonb_array_elements(o.allocations) AS a
      WHERE o.status IN ('allocating', 'delegated') AND a ->> 'kind' = 'delegate' AND ((a ->> 'landed') IS NULL OR (a ->> 'landed')::boolean)
      GROUP BY 1, 2, 3, 4
     UNION ALL
     -- A set stored and not applied yet: the broadcaster may send it before the processor applies it
     -- (Broadcaster.sendAhead), so it may land while the order still names no allocation.
     SELECT 'adding', o.receiver, o.resource, a ->> 'from', sum((a ->> 'sun')::numeric)::text
       FROM orders o JOIN order_signatures s ON s.order_id = o.id AND s.purpose = 'allocate'
            CROSS JOIN LATERAL jsonb_array_elements(s.command::jsonb -> 'txs') AS a
      WHERE o.status IN ('allocating', 'delegated') AND o.allocations = '[]'::jsonb AND a ->> 'kind' = 'delegate'
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
async function closedOrders(pool: Pool, receivers: string[]): Promise<Map<string, string[]>> {
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

export function ordersStakeCheck(deps: { pool: Pool; reader: ChainReader; poolAddresses: string[] }): ReconcileCheck {
  return {
    name: 'orders-stake',
    async run(): Promise<ReconcileRow[]> {
      const { pool, reader, poolAddresses } = deps;
      const [expected, flight] = await Promise.all([openStake(pool), inFlight(pool)]);
      const pairs = new Set<string>();
      for (const key of [...expected.keys(), ...flight.adding.keys(), ...flight.removing.keys()]) {
        const [from, receiver] = key.split('|');
        if (poolAddresses.includes(from)) pairs.add(`${from}|${receiver}`);
      }
      const indexes = await Promise.all(poolAddresses.map(async (from) => ({ from, to: await reader.delegatesTo(from) })));
      for (const { from, to } of indexes) for (const receiver of to) pairs.add(`${from}|${receiver}`);

      const list = [...pairs];
      // One getdelegatedresourcev2 per pair (java-tron has no batch read). READS_AT_ONCE readers take the
      // next pair as soon as their read answers: waves of READS_AT_ONCE would wait for each wave's slowest.
      const onChain = new Map<string, { ENERGY: bigint; BANDWIDTH: bigint }>();
      let next = 0;
      await Promise.all(Array.from({ length: Math.min(READS_AT_ONCE, list.length) }, async () => {
        while (next < list.length) {
          const pair = list[next++];
          const [from, receiver] = pair.split('|');
          onChain.set(pair, await reader.delegated(from, receiver, 'full'));
        }
      }));

      const rows: ReconcileRow[] = [];
      for (const pair of list) {
        const [from, receiver] = pair.split('|');
        for (const resource of RESOURCES) {
          const key = stakeKey(from, receiver, resource);
          const chain = (onChain.get(pair) as { ENERGY: bigint; BANDWIDTH: bigint })[resource];
          const want = expected.get(key) ?? 0n;
          if (chain === 0n && want === 0n && !flight.adding.has(key)) continue;
          const difference = chain - want;
          const inFlightNow = difference > 0n ? difference <= (flight.adding.get(key) ?? 0n) : -difference <= (flight.removing.get(key) ?? 0n);
          rows.push({ subject: { pool: from, receiver, resource }, onChain: chain, expected: want, difference, inFlight: difference !== 0n && inFlightNow, note: null });
        }
      }
      const leaks = rows.filter((r) => r.difference > 0n && !r.inFlight);
      const closed = await closedOrders(pool, [...new Set(leaks.map((r) => r.subject.receiver))]);
      for (const r of leaks) {
        const ids = closed.get(`${r.subject.pool}|${r.subject.receiver}`) ?? [];
        r.note = ids.length > 0 ? `stake of closed orders still delegated: ${ids.slice(0, 5).join(', ')}${ids.length > 5 ? ', ...' : ''}` : 'delegated to no open order';
      }
      return rows;
    },
  };
}
