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
import { closedOrdersByPoolAndReceiver, stakeInFlight } from '../orders/stake-reads';
import { ChainReader } from '../chain/reads';
import type { Pool } from '../platform/db/pool';
import { openStake, stakeKey } from '../orders/open-stake';
import type { ReconcileCheck, ReconcileRow } from './check';

const RESOURCES = ['ENERGY', 'BANDWIDTH'] as const;

/** Concurrent chain reads per pass. */
const READS_AT_ONCE = 64;

export function ordersStakeCheck(deps: { pool: Pool; reader: ChainReader; poolAddresses: string[] }): ReconcileCheck {
  return {
    name: 'orders-stake',
    async run(meter): Promise<ReconcileRow[]> {
      const { pool, reader, poolAddresses } = deps;
      const [expected, flight] = await Promise.all([openStake(pool), stakeInFlight(pool)]);
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
      meter?.start('orders-stake chain reads (pool, receiver)', list.length);
      await Promise.all(Array.from({ length: Math.min(READS_AT_ONCE, list.length) }, async () => {
        while (next < list.length) {
          const pair = list[next++];
          const [from, receiver] = pair.split('|');
          onChain.set(pair, await reader.delegated(from, receiver, 'full'));
          meter?.advance();
        }
      }));
      meter?.finish();

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
      const closed = await closedOrdersByPoolAndReceiver(pool, [...new Set(leaks.map((r) => r.subject.receiver))]);
      for (const r of leaks) {
        const ids = closed.get(`${r.subject.pool}|${r.subject.receiver}`) ?? [];
        r.note = ids.length > 0 ? `stake of closed orders still delegated: ${ids.slice(0, 5).join(', ')}${ids.length > 5 ? ', ...' : ''}` : 'delegated to no open order';
      }
      return rows;
    },
  };
}
