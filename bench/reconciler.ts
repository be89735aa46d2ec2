/**
 * Reconciler benchmark (not a test). Run against the test stack:
 *   make test-stack-up && infra/env/load.sh test -- npx tsx bench/reconciler.ts
 * A devnet of its own with 1,000 funded receivers (DEVNET_CUSTOMERS) and 3 pool addresses; a world
 * database holding BENCH_ORDERS (10,000) active orders spread over the receivers and pool addresses, and
 * on chain one delegation per (pool address, receiver) of exactly what those orders hold there. Prints the
 * orders-stake check's pass time (median of BENCH_PASSES), its rows, the orders/s one reconciler keeps
 * up with at that pass time (orders covered per second of pass) against the 2,000 orders/s goal, and where
 * a pass goes: the orders' SQL (openStake) and the chain reads (one getdelegatedresourcev2 per pair), each
 * timed alone after the passes.
 */
import os from 'node:os';
import { randomBytes } from 'node:crypto';
import { poolSigners } from '../services/chain/pool-keys';
import { ChainReader } from '../services/chain/reads';
import { ChainWriter, uniqueRef } from '../services/chain/writes';
import { emptyIdentity, emptyTotals, type Account } from '../services/domain/account';
import { stringifyJson } from '../services/platform/json';
import { insertRows } from '../services/platform/db/bulk';
import { inTransaction } from '../services/platform/db/pool';
import { createRuntime } from '../services/runtime';
import { accountColumns, accountToRow } from '../services/processor/account-rows';
import { isFinding } from '../services/reconciler/check';
import { openStake } from '../services/orders/open-stake';
import { ordersStakeCheck } from '../services/reconciler/orders-check';
import { startDevnet } from '../test/devnet/start-devnet';
import { dropWorld, newWorld } from '../test/support/world';
import { median } from './figures';

const ORDERS = Number(process.env.BENCH_ORDERS ?? 10_000);
const RECEIVERS = Number(process.env.BENCH_RECEIVERS ?? 1_000);
const PASSES = Number(process.env.BENCH_PASSES ?? 5);
const GOAL_ORDERS_PER_S = 2_000;
const SUN_PER_ORDER = 455_000_000n; // about 10,000 energy at the devnet's ratio


async function main(): Promise<void> {
  const devnet = await startDevnet({ DEVNET_BLOCK_MS: '300', DEVNET_CUSTOMERS: String(RECEIVERS) });
  const world = newWorld('benchreconcile', { TRON_FULL_HOST: devnet.url, DEVNET_POOL: '3' });
  const rt = await createRuntime(world.cfg);
  try {
    const receivers = devnet.accounts.customers.map((c) => c.address).slice(0, RECEIVERS);
    const pools = poolSigners(rt.cfg);
    const account: Account = {
      id: `acc_bench${randomBytes(4).toString('hex')}`, brand: rt.cfg.BRAND, network: rt.cfg.NETWORK, ownerAddress: null, displayName: null, status: 'active',
      balanceSun: 0n, balanceUsdt: 0n, reservedSun: 0n, totals: emptyTotals(), ...emptyIdentity(), createdAt: Date.now(), updatedAt: Date.now(),
    } as Account;
    // Order i: receiver i mod R, pool address (i div R) mod 3; one landed delegation each.
    const held = new Map<string, bigint>();
    const rows: unknown[][] = [];
    const now = new Date();
    const later = new Date(Date.now() + 3_600_000);
    for (let i = 0; i < ORDERS; i++) {
      const receiver = receivers[i % receivers.length];
      const from = pools[Math.floor(i / receivers.length) % pools.length].address;
      held.set(`${from}|${receiver}`, (held.get(`${from}|${receiver}`) ?? 0n) + SUN_PER_ORDER);
      const allocation = [{ kind: 'delegate', from, amount: 10_000, sun: SUN_PER_ORDER, txId: randomBytes(32).toString('hex'), signedTx: '{}', landed: true }];
      rows.push([`ord_bench${i}`, account.id, 'h', 'energy', 10_000, 10_000, '1h', 3600, receiver, 'api', 'active', 'confirmed', 40n, 400_000n, 0n, 400_000n, 0n,
        'pool', stringifyJson(allocation), '[]', now, later, now, now]);
    }
    await inTransaction(rt.pool, async (client) => {
      await insertRows(client, 'accounts', accountColumns, [accountToRow(account)]);
      await insertRows(client, 'orders', ['id', 'account_id', 'request_hash', 'resource', 'amount', 'delivered_amount', 'tier', 'duration_seconds', 'receiver',
        'source', 'status', 'confirm_status', 'price_sun_per_unit', 'pay_amount_sun', 'activate_amount_sun', 'total_amount_sun', 'refunded_amount_sun',
        'supplier', 'allocations', 'undelegations', 'delegated_at', 'expires_at', 'created_at', 'updated_at'], rows);
      // The stake the processor would keep beside those orders (order_stake, read by openStake).
      await insertRows(client, 'order_stake', ['receiver', 'pool_address', 'resource', 'sun'],
        [...held].map(([pair, sun]) => [pair.split('|')[1], pair.split('|')[0], 'ENERGY', sun]));
    });

    // On chain: one delegation per pair of exactly what its orders hold.
    const writer = ChainWriter.fromConfig(rt.cfg);
    const reader = ChainReader.fromConfig(rt.cfg);
    const setupStarted = Date.now();
    const pairs = [...held.entries()];
    let nonce = 1n;
    const pending = new Set<string>();
    for (let i = 0; i < pairs.length; i += 50) {
      const ref = await writer.refBlock(60_000);
      await Promise.all(pairs.slice(i, i + 50).map(async ([pair, sun]) => {
        const [from, receiver] = pair.split('|');
        const tx = await writer.signDelegate(pools.find((p) => p.address === from)!, receiver, 'ENERGY', sun, uniqueRef(ref, nonce++));
        const outcome = await writer.broadcast(tx.signedTx);
        if (outcome.kind !== 'accepted') throw new Error(`setup delegation refused: ${JSON.stringify(outcome)}`);
        pending.add(tx.txId);
      }));
    }
    for (const txId of pending) {
      while (!(await reader.transactionInfo(txId, 'full'))) await new Promise((r) => setTimeout(r, 200));
    }
    console.log(JSON.stringify({ setup: 'chain', delegations: pairs.length, seconds: (Date.now() - setupStarted) / 1000 }));

    const check = ordersStakeCheck({ pool: rt.pool, reader, poolAddresses: pools.map((p) => p.address) });
    const times: number[] = [];
    let last: Awaited<ReturnType<typeof check.run>> = [];
    for (let i = 0; i < PASSES; i++) {
      const started = performance.now();
      last = await check.run();
      times.push(performance.now() - started);
    }
    const passMs = median(times);
    const covered = Math.round(ORDERS / (passMs / 1000));
    console.log(JSON.stringify({
      bench: 'reconciler orders-stake pass', open_orders: ORDERS, receivers: receivers.length, pool_addresses: pools.length,
      rows: last.length, findings: last.filter(isFinding).length, pass_ms_median: Math.round(passMs), pass_ms_all: times.map(Math.round),
      orders_per_s_covered: covered, goal_orders_per_s: GOAL_ORDERS_PER_S, ratio_to_goal: Number((covered / GOAL_ORDERS_PER_S).toFixed(2)),
      cores: os.cpus().length, load_average_1m: Number(os.loadavg()[0].toFixed(1)),
    }));

    // Where a pass goes: the same SQL and the same reads, each alone (medians of BENCH_PASSES).
    const sqlTimes: number[] = [];
    const readTimes: number[] = [];
    const waveTimes: number[] = [];
    const readsAsPool = async () => {
      let next = 0;
      await Promise.all(Array.from({ length: 64 }, async () => {
        while (next < pairs.length) {
          const [from, receiver] = pairs[next++][0].split('|');
          await reader.delegated(from, receiver, 'full');
        }
      }));
    };
    // The reads as the check made them before (waves of 64, each waiting for its slowest), for the ratio.
    const readsInWaves = async () => {
      for (let j = 0; j < pairs.length; j += 64) {
        await Promise.all(pairs.slice(j, j + 64).map(([pair]) => reader.delegated(pair.split('|')[0], pair.split('|')[1], 'full')));
      }
    };
    const timed = async (fn: () => Promise<unknown>, into: number[]) => {
      const started = performance.now();
      await fn();
      into.push(performance.now() - started);
    };
    for (let i = 0; i < PASSES; i++) {
      await timed(() => openStake(rt.pool), sqlTimes);
      // Alternate which goes first, so neither always meets the machine's next burst.
      if (i % 2 === 0) await timed(readsAsPool, readTimes).then(() => timed(readsInWaves, waveTimes));
      else await timed(readsInWaves, waveTimes).then(() => timed(readsAsPool, readTimes));
    }
    const readMs = median(readTimes);
    console.log(JSON.stringify({
      bench: 'reconciler pass parts', open_stake_sql_ms_median: Math.round(median(sqlTimes)),
      chain_reads: pairs.length, chain_reads_ms_median: Math.round(readMs), chain_reads_per_s: Math.round(pairs.length / (readMs / 1000)),
      chain_reads_in_waves_ms_median: Math.round(median(waveTimes)), chain_reads_ms_all: readTimes.map(Math.round), chain_reads_in_waves_ms_all: waveTimes.map(Math.round),
    }));
  } finally {
    await rt.close();
    await dropWorld(world);
    await devnet.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
