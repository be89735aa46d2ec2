/**
 * The processor's SQL for order slices, before and after a change, side by side in one process (not a test).
 * On the shared machine the live bench (bench/orders.ts) moves by a third between runs; here both trees
 * take turns slice by slice on one world database, each on a connection of its own, and the figure is the
 * CPU of each tree's PostgreSQL backend (/proc/<pid>/stat: the server runs on this machine) and of this
 * process while it ran that tree's slices, per order. Kafka, Avro and the pure domain are left out.
 *
 *   BENCH_BASE=/work/wt/base-<name> infra/env/load.sh test -- npx tsx bench/order-writes-ab.ts
 *
 * Each slice of BENCH_BATCH (50) orders over 10 accounts does what the processor's transaction does for
 * them, through each tree's own store functions: claim the commands, read the accounts and the orders, write
 * accounts, journals and lines, orders, outbox rows (two per order) and the results. Every order gets two
 * slices: created (inserts) and, later, settled (the same orders updated). BENCH_SLICES (100) slices per tree,
 * BENCH_ROUNDS (5) rounds; the tree going first alternates.
 */
import { join, resolve } from 'node:path';
import type { PoolClient } from '../services/platform/db/pool';
import { dropWorld, newWorld, openRuntime } from '../test/support/world';
import { median } from './figures';
import { cpuAround } from './proc-cpu';

const BASE = process.env.BENCH_BASE;
const BATCH = Number(process.env.BENCH_BATCH ?? 50);
const SLICES = Number(process.env.BENCH_SLICES ?? 100);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const ACCOUNTS = 10;

interface Tree {
  name: string;
  client: PoolClient;
  backend: number;
  store: any;
  orders: any;
  rows: any;
  bulk: any;
  next: number;
  /** Orders created and not yet settled, oldest first. */
  open: string[];
}

function accountRow(id: string, now: Date): Record<string, unknown> {
  return {
    id, brand: 'tronrent', network: 'nile', owner_address: `T${id.padEnd(33, 'x')}`, display_name: null, status: 'active',
    balance_sun: 10n ** 15n, balance_usdt: 0n, reserved_sun: 0n, deposited_sun: 10n ** 15n, spent_sun: 0n, refunded_sun: 0n,
    orders_created: 0, energy_delegated: 0n, created_at: now, updated_at: now, email: null, deposit_address: null,
    deposit_index: null, deposit_issued_at: null, retired_deposit_addresses: [], low_balance_threshold_sun: null,
  };
}

function orderRow(id: string, accountId: string, status: string, now: Date): Record<string, unknown> {
  return {
    id, account_id: accountId, client_order_id: `c-${id}`, request_hash: 'h'.repeat(64), quote_id: null, resource: 'energy', amount: 65_000n,
    delivered_amount: status === 'active' ? 65_000n : null, partial: false, tier: 'standard', duration_seconds: 3600,
    receiver: 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf', source: 'api', status, confirm_status: status === 'active' ? 'confirmed' : 'unconfirmed',
    price_sun_per_unit: 60n, pay_amount_sun: 3_900_000n, activate_amount_sun: 0n, total_amount_sun: 3_900_000n, refunded_amount_sun: 0n,
    supplier: 'pool', ratio_limit: null, ratio_weight: null, allocations: [], delegated_at: status === 'active' ? now : null,
    expires_at: status === 'active' ? new Date(now.getTime() + 3_600_000) : null, close_reason: null, close_requested_at: null,
    undelegations: [], reclaim_hash: null, reclaimed_at: null, memo: 'bench', failure: null, created_at: now, updated_at: now,
    batch_id: null, subscription_id: null,
  };
}

async function tree(root: string, name: string, pool: any): Promise<Tree> {
  const client = await pool.connect();
  const backend = (await client.query('SELECT pg_backend_pid() AS pid')).rows[0].pid as number;
  return {
    name, client, backend, next: 0, open: [],
    store: await import(join(root, 'services/processor/store.ts')),
    orders: await import(join(root, 'services/processor/order-store.ts')),
    rows: await import(join(root, 'services/processor/account-rows.ts')),
    bulk: await import(join(root, 'services/platform/db/bulk.ts')),
  };
}

/** One slice of `tree`: BATCH new orders, or (every other slice) BATCH open orders settled. */
async function slice(t: Tree, settle: boolean): Promise<void> {
  const now = new Date();
  const ids = settle ? t.open.splice(0, BATCH) : Array.from({ length: BATCH }, () => `ord_${t.name}${(t.next++).toString(16).padStart(12, '0')}`);
  if (!settle) t.open.push(...ids);
  const accountOf = (id: string) => `acc_${t.name}${Number.parseInt(id.slice(-12), 16) % ACCOUNTS}`;
  const commands = ids.map((id) => ({
    type: settle ? 'order.settle' : 'order.create', commandId: `cmd_${settle ? 's' : 'c'}${id}`, accountId: accountOf(id), orderId: id,
    clientOrderId: null, quoteId: null, idempotencyKey: null,
  }));
  await t.client.query('BEGIN');
  await t.store.claimCommands(t.client, commands);
  const accounts: Map<string, any> = await t.store.loadAccounts(t.client, [...new Set(commands.map((c) => c.accountId))]);
  const state = await t.orders.OrderState.load(t.client, commands);
  const journals: unknown[] = [];
  const outbox: unknown[] = [];
  for (const c of commands) {
    const account = accounts.get(c.accountId);
    account.balanceSun -= settle ? 0n : 3_900_000n;
    account.updatedAt = now.getTime();
    state.put(t.orders.orderFromRow(orderRow(c.orderId, c.accountId, settle ? 'active' : 'allocating', now)));
    if (!settle) {
      journals.push({
        id: `jnl_${c.orderId}`, accountId: c.accountId, kind: 'order_charge', commandId: c.commandId, orderId: c.orderId, memo: null, createdAt: now.getTime(),
        lines: [{ ledgerAccount: `customer:${c.accountId}:trx`, currency: 'TRX', amount: -3_900_000n }, { ledgerAccount: 'revenue:trx', currency: 'TRX', amount: 3_900_000n }],
      });
    }
    for (const kind of ['order', 'account']) {
      const eventId = `evt_${kind}${settle ? 's' : 'c'}${c.orderId}`;
      outbox.push({
        destination: kind === 'order' ? 'order-events' : 'account-events', messageId: eventId, accountId: c.accountId, createdAt: now.getTime(), traceContext: null,
        payload: { type: kind === 'order' ? 'order.status_changed' : 'order.created', eventId, accountId: c.accountId, orderId: c.orderId, status: settle ? 'active' : 'allocating', amount: 65_000 },
      });
    }
  }
  const writes = new t.bulk.WriteGroup();
  const last = new t.bulk.WriteGroup();
  t.store.saveAccounts(writes, [...accounts.values()]);
  t.store.saveJournals(writes, journals);
  state.save(writes, last);
  await writes.send(t.client);
  t.store.saveOutbox(last, outbox, 0);
  t.store.finishResults(last, commands.map((c) => ({ commandId: c.commandId, outcome: 'applied', status: 201, body: { id: c.orderId }, error: null, refusalReason: null })));
  await last.send(t.client);
  await t.client.query('COMMIT');
}

async function main(): Promise<void> {
  if (!BASE) throw new Error('BENCH_BASE=<checkout of the tree before the change> is required');
  const world = newWorld('orderwritesab', { LOG_LEVEL: 'error' });
  const rt = await openRuntime(world);
  try {
    const trees = [await tree(resolve(BASE), 'a', rt.pool), await tree(resolve(__dirname, '..'), 'b', rt.pool)];
    const now = new Date();
    for (const t of trees) {
      const accounts = Array.from({ length: ACCOUNTS }, (_, i) => t.rows.accountFromRow(accountRow(`acc_${t.name}${i}`, now)));
      await t.bulk.insertRows(t.client, 'accounts', t.rows.accountColumns, accounts.map(t.rows.accountToRow));
      for (let i = 0; i < 20; i++) await slice(t, i % 2 === 1); // warm up: module code, plans, named statements
    }
    const perOrder: Record<string, { pg: number[]; node: number[]; wall: number[] }> = { a: { pg: [], node: [], wall: [] }, b: { pg: [], node: [], wall: [] } };
    console.log(`order writes A/B: ${BATCH} orders per slice, ${SLICES} slices per tree per round, A = ${BASE}, B = ${resolve(__dirname, '..')}`);
    for (let round = 0; round < ROUNDS; round++) {
      const spent = trees.map(() => ({ pg: 0, node: 0, wall: 0 }));
      for (let s = 0; s < SLICES; s++) {
        for (let k = 0; k < trees.length; k++) {
          const i = (s + round + k) % trees.length;
          const t = trees[i];
          const w0 = performance.now();
          const cost = await cpuAround(t.backend, () => slice(t, s % 2 === 1));
          spent[i].wall += performance.now() - w0;
          spent[i].node += cost.nodeMs;
          spent[i].pg += cost.pgMs;
        }
      }
      const orders = SLICES * BATCH;
      for (const [i, t] of trees.entries()) {
        perOrder[t.name].pg.push(spent[i].pg / orders);
        perOrder[t.name].node.push(spent[i].node / orders);
        perOrder[t.name].wall.push(spent[i].wall / orders);
      }
      const f = (n: number) => n.toFixed(4);
      console.log(`round ${round + 1} (load average ${(await import('node:os')).loadavg().map((l) => l.toFixed(1)).join(' ')}): ms per order slice-applied, `
        + `PostgreSQL backend A ${f(perOrder.a.pg[round])} / B ${f(perOrder.b.pg[round])}, this process A ${f(perOrder.a.node[round])} / B ${f(perOrder.b.node[round])}, `
        + `wall A ${f(perOrder.a.wall[round])} / B ${f(perOrder.b.wall[round])}`);
    }
    const m = (x: number[]) => median(x);
    console.log(`medians: PostgreSQL backend ms per order A ${m(perOrder.a.pg).toFixed(4)} / B ${m(perOrder.b.pg).toFixed(4)} (B/A ${(m(perOrder.b.pg) / m(perOrder.a.pg)).toFixed(2)}), `
      + `this process A ${m(perOrder.a.node).toFixed(4)} / B ${m(perOrder.b.node).toFixed(4)} (B/A ${(m(perOrder.b.node) / m(perOrder.a.node)).toFixed(2)}), `
      + `wall A ${m(perOrder.a.wall).toFixed(4)} / B ${m(perOrder.b.wall).toFixed(4)}`);
    for (const t of trees) t.client.release();
  } finally {
    await rt.close();
    await dropWorld(world, undefined);
  }
}

main().then(() => process.exit(0), (err) => {
  console.error(err);
  process.exit(1);
});
