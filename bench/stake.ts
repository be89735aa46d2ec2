/**
 * openStake benchmark (not a test): the stake read of the confirmer, the scheduler and the reconciler with
 * many active orders on few receivers, and the processor's writes per settled order, A (another checkout's
 * code, BENCH_SERVICE_ROOT, default /work/main) against B (this one), in alternating pairs on one database.
 *   infra/env/load.sh test -- npx tsx bench/stake.ts
 * A world database (this tree's migrations) holds BENCH_ORDERS (20,000) active orders on BENCH_RECEIVERS (5)
 * receivers and 3 pool addresses, BENCH_LEAVING (50) of them on their way out (expired, undelegations stored,
 * close asked), written through this tree's processor order store (so order_stake is what the processor
 * keeps). Then BENCH_PAIRS (5) pairs, the side going first alternating: each side makes BENCH_CALLS (10) calls
 * of each shape (confirmer: every receiver leaving at now; scheduler: one receiver, one order left out,
 * leaving at now; reconciler: every key) and the two answers are compared. Then the writes: per pair, each
 * side confirms BENCH_SETTLE (500) delivered orders of new receivers through its own processor order store
 * (load, save, commit), as the processor applies order.settle. Figures: medians over pairs of the per-call
 * (per-order) wall ms and of PostgreSQL's execution ms (pg_stat_statements, where loaded); the load average.
 */
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { emptyIdentity, emptyTotals, type Account } from '../services/domain/account';
import type { Command } from '../services/domain/commands';
import type { Order } from '../services/domain/orders/rules';
import { insertRows, WriteGroup } from '../services/platform/db/bulk';
import { inTransaction, type Pool } from '../services/platform/db/pool';
import { accountColumns, accountToRow } from '../services/processor/account-rows';
import { openRuntime, newWorld, dropWorld } from '../test/support/world';
import { median } from './figures';
import { statementRows } from './statements';

const ORDERS = Number(process.env.BENCH_ORDERS ?? 20_000);
const RECEIVERS = Number(process.env.BENCH_RECEIVERS ?? 5);
const LEAVING = Number(process.env.BENCH_LEAVING ?? 50);
const PAIRS = Number(process.env.BENCH_PAIRS ?? 5);
const CALLS = Number(process.env.BENCH_CALLS ?? 10);
const SETTLE = Number(process.env.BENCH_SETTLE ?? 500);
const ROOT_A = path.resolve(process.env.BENCH_SERVICE_ROOT ?? '/work/main');
const ROOT_B = path.resolve(__dirname, '..');

type OpenStake = (pool: Pool, q?: { receivers?: string[]; excludeOrder?: string; leavingAt?: number }) => Promise<Map<string, bigint>>;
interface Side { name: 'A' | 'B'; openStake: OpenStake; OrderState: any }

async function side(name: 'A' | 'B', root: string): Promise<Side> {
  const { openStake } = await import(path.join(root, 'services/orders/open-stake.ts'));
  const { OrderState } = await import(path.join(root, 'services/processor/order-store.ts'));
  return { name, openStake, OrderState };
}

const address = (tag: string, i: number) => `T${tag}${String(i).padStart(33 - tag.length, '0')}`;

function order(id: string, accountId: string, receiver: string, from: string, status: Order['status'], now: number, extra: Partial<Order> = {}): Order {
  return {
    id, accountId, clientOrderId: null, requestHash: 'h', quoteId: null, resource: 'energy', amount: 10_000, deliveredAmount: 10_000, partial: false,
    tier: '1h', durationSeconds: 3600, receiver, source: 'api', status, confirmStatus: 'confirmed', priceSunPerUnit: 40n, paySun: 400_000n, activateSun: 0n,
    totalSun: 400_000n, refundedSun: 0n, supplier: 'pool', ratio: null,
    allocations: [{ kind: 'delegate', from, amount: 10_000, sun: 455_000_000n, txId: randomBytes(16).toString('hex'), signedTx: '{}', landed: status === 'allocating' ? null : true }],
    delegatedAt: now, expiresAt: now + 3_600_000, closeReason: null, closeRequestedAt: null, undelegations: [], reclaimHash: null, reclaimedAt: null,
    memo: null, failure: null, createdAt: now, updatedAt: now, batchId: null, subscriptionId: null, ...extra,
  } as Order;
}

/** Writes `orders` (changed or new) through a side's processor order store, in one transaction per 500. */
async function store(pool: Pool, s: Side, orders: Order[]): Promise<void> {
  for (let i = 0; i < orders.length; i += 500) {
    const slice = orders.slice(i, i + 500);
    await inTransaction(pool, async (client) => {
      const state = await s.OrderState.load(client, slice.map((o) => ({ type: 'order.settle', orderId: o.id } as unknown as Command)));
      for (const o of slice) state.put(o);
      const writes = new WriteGroup();
      const later = new WriteGroup();
      state.save(writes, later);
      await writes.send(client);
      await later.send(client);
    });
  }
}

/** PostgreSQL's execution ms of this world's statements so far (only the measured side runs between two readings). */
async function execMs(pool: Pool): Promise<number> {
  const rows = await statementRows(pool);
  if (!rows) return NaN;
  return [...rows.values()].reduce((a, r) => a + r.ms, 0);
}

async function main(): Promise<void> {
  const world = newWorld('benchstake');
  const rt = await openRuntime(world);
  try {
    await rt.pool.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements').catch(() => undefined);
    const A = await side('A', ROOT_A);
    const B = await side('B', ROOT_B);
    const now = Date.now();
    const account = {
      id: `acc_bench${randomBytes(4).toString('hex')}`, brand: rt.cfg.BRAND, network: rt.cfg.NETWORK, ownerAddress: null, displayName: null, status: 'active',
      balanceSun: 0n, balanceUsdt: 0n, reservedSun: 0n, totals: emptyTotals(), ...emptyIdentity(), createdAt: now, updatedAt: now,
    } as Account;
    await inTransaction(rt.pool, (client) => insertRows(client, 'accounts', accountColumns, [accountToRow(account)]));
    const receivers = Array.from({ length: RECEIVERS }, (_, i) => address('Recv', i));
    const pools = Array.from({ length: 3 }, (_, i) => address('Pool', i));
    const setup: Order[] = [];
    for (let i = 0; i < ORDERS; i++) {
      const leaving = i < LEAVING;
      const extra: Partial<Order> = !leaving ? {} : i % 3 === 0 ? { expiresAt: now - 1_000 } : i % 3 === 1 ? { undelegations: [{ from: pools[i % 3], sun: 455_000_000n, txId: `u${i}`, signedTx: '{}' } as Order['undelegations'][number]] } : { closeReason: 'reclaimed', closeRequestedAt: now };
      setup.push(order(`ord_stake${i}`, account.id, receivers[i % RECEIVERS], pools[Math.floor(i / RECEIVERS) % 3], 'active', now, extra));
    }
    const setupStarted = Date.now();
    await store(rt.pool, B, setup);
    await rt.pool.query('ANALYZE orders');
    await rt.pool.query('ANALYZE order_stake');
    console.log(JSON.stringify({ setup: 'orders', orders: ORDERS, receivers: RECEIVERS, leaving: LEAVING, seconds: (Date.now() - setupStarted) / 1000 }));

    const shapes = {
      confirmer: () => ({ receivers, leavingAt: Date.now() }),
      scheduler: () => ({ receivers: [receivers[1]], excludeOrder: `ord_stake${RECEIVERS + 1}`, leavingAt: Date.now() }),
      reconciler: () => ({}),
    };
    type Shape = keyof typeof shapes;
    // BENCH_EXPLAIN=1: each side's plan of each shape (EXPLAIN ANALYZE of the statements it sends).
    if (process.env.BENCH_EXPLAIN === '1') {
      const stats = await rt.pool.query(`SELECT attname, null_frac, n_distinct, most_common_vals::text AS mcv, most_common_freqs::text AS mcf, histogram_bounds::text AS hist FROM pg_stats WHERE tablename = 'orders_holding'`);
      console.log('orders_holding stats:', JSON.stringify(stats.rows).slice(0, 1500));
      for (const s of [A, B]) for (const shape of Object.keys(shapes) as Shape[]) {
        const explaining = { query: async (sql: string, params: unknown[]) => {
          const { rows } = await rt.pool.query(`EXPLAIN (ANALYZE, BUFFERS) ${sql}`, params);
          console.log(`${s.name} ${shape}:\n${rows.map((r) => `  ${r['QUERY PLAN']}`).join('\n')}`);
          return { rows: [] };
        } } as unknown as Pool;
        await s.openStake(explaining, shapes[shape]());
      }
    }
    const reads: Record<'A' | 'B', Record<Shape, { wall: number[]; pg: number[] }>> = { A: {} as any, B: {} as any };
    for (const s of ['A', 'B'] as const) for (const shape of Object.keys(shapes) as Shape[]) reads[s][shape] = { wall: [], pg: [] };
    for (let pair = 0; pair < PAIRS; pair++) {
      const order = pair % 2 === 0 ? [A, B] : [B, A];
      for (const shape of Object.keys(shapes) as Shape[]) {
        const q = shapes[shape]();
        const answers: string[] = [];
        for (const s of order) {
          const pgBefore = await execMs(rt.pool);
          const started = performance.now();
          let last = new Map<string, bigint>();
          for (let c = 0; c < CALLS; c++) last = await s.openStake(rt.pool, q);
          reads[s.name][shape].wall.push((performance.now() - started) / CALLS);
          reads[s.name][shape].pg.push(((await execMs(rt.pool)) - pgBefore) / CALLS);
          answers.push(JSON.stringify([...last].filter(([, v]) => v !== 0n).sort().map(([k, v]) => [k, v.toString()])));
        }
        if (answers[0] !== answers[1]) throw new Error(`A and B differ on ${shape}: ${answers[0]} / ${answers[1]}`);
      }
    }
    for (const shape of Object.keys(shapes) as Shape[]) {
      const f = (s: 'A' | 'B') => ({ wall_ms_median: Number(median(reads[s][shape].wall).toFixed(3)), pg_exec_ms_median: Number(median(reads[s][shape].pg).toFixed(3)), wall_ms_pairs: reads[s][shape].wall.map((x) => Number(x.toFixed(2))) });
      console.log(JSON.stringify({ bench: `openStake ${shape}`, A: f('A'), B: f('B') }));
    }

    // Writes per settled order: each side confirms SETTLE orders of receivers of its own (allocating -> confirmed).
    const writes: Record<'A' | 'B', { wall: number[]; pg: number[] }> = { A: { wall: [], pg: [] }, B: { wall: [], pg: [] } };
    for (let pair = 0; pair < PAIRS; pair++) {
      for (const s of pair % 2 === 0 ? [A, B] : [B, A]) {
        const tag = `${s.name}${pair}`;
        const fresh = Array.from({ length: SETTLE }, (_, i) => order(`ord_settle${tag}_${i}`, account.id, address(`R${tag}x`, i % 50), pools[i % 3], 'allocating', now));
        await store(rt.pool, s, fresh);
        const pgBefore = await execMs(rt.pool);
        const started = performance.now();
        await store(rt.pool, s, fresh.map((o) => ({ ...o, status: 'confirmed', allocations: o.allocations.map((a) => ({ ...a, landed: true })), updatedAt: o.updatedAt + 1 })));
        writes[s.name].wall.push((performance.now() - started) / SETTLE);
        writes[s.name].pg.push(((await execMs(rt.pool)) - pgBefore) / SETTLE);
      }
    }
    const w = (s: 'A' | 'B') => ({ wall_ms_per_order_median: Number(median(writes[s].wall).toFixed(4)), pg_exec_ms_per_order_median: Number(median(writes[s].pg).toFixed(4)), wall_pairs: writes[s].wall.map((x) => Number(x.toFixed(4))) });
    console.log(JSON.stringify({ bench: 'processor order writes per settled order', A: w('A'), B: w('B') }));
    console.log(JSON.stringify({ a_root: ROOT_A, b_root: ROOT_B, pairs: PAIRS, cores: os.cpus().length, load_average_1m: Number(os.loadavg()[0].toFixed(1)) }));
  } finally {
    await rt.close();
    await dropWorld(world);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
