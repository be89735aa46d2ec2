/**
 * The transfer desk on the devnet (contract.md section 12) with every role it needs running: the deposit
 * watcher, the processor, the order roles and the desk returner. A wallet pays TRX to the desk address and
 * the energy lands on the sender (or the memo's address), read from the chain; payments out of range and
 * one whose receiver cannot be activated come back once, read from the chain; re-reading the blocks and a
 * watcher SIGKILLed mid-scan place no second order and send no second return; the stack's teardown
 * replays the log into an empty database and compares every table (desk_payments included).
 */
import { TronWeb } from 'tronweb';
import { DepositWatcher } from '../../../services/deposits/watcher';
import { deskAccountId } from '../../../services/domain/desk/rules';
import { ChainReader } from '../../../services/chain/reads';
import type { Stoppable } from '../../../services/roles';
import { call, newWallet } from '../../support/identity';
import { startDeliveryStack, type OrderStack } from '../../support/orders';
import { startService } from '../../support/service-process';
import { eventually, templateReplay } from '../../support/world';
import { replayAndVerify } from '../../../services/ops/replay';
import { processorCaughtUp } from '../../support/processor-lag';
import { statsCaughtUp } from '../../support/stats';
import { runOps } from '../../support/ops-process';
import { assertLedgerInvariants } from '../../support/ledger-invariants';

const SCALE = 20;
const CONFIRMATIONS = 3;
let stack: OrderStack;
let watcher: DepositWatcher | undefined;
let roles: Stoppable[] = [];
let desk: any;
let tronWeb: TronWeb;
let reader: ChainReader;

const wallet = (i: number) => stack.devnet.accounts.customers[i];
const signerOf = (i: number) => new TronWeb({ fullHost: stack.devnet.url, privateKey: wallet(i).private_key });

async function startWatcher(): Promise<void> {
  watcher = new DepositWatcher({ cfg: stack.rt.cfg, pool: stack.rt.pool, bus: stack.bus, clock: stack.rt.clock });
  watcher.start();
}

async function stopWatcher(): Promise<void> {
  await watcher?.stop();
  watcher = undefined;
}

beforeAll(async () => {
  // 5m tier on a 20x clock: the rental ends 15 s after delivery, so the test sees it expire too.
  stack = await startDeliveryStack('transferdesk', SCALE, {
    DEPOSIT_CONFIRMATIONS: String(CONFIRMATIONS), DEPOSIT_POLL_MS: '100', DESK_POLL_MS: '100', DESK_TIER: '5m', DESK_MARKUP_SUN: '10',
    DESK_MIN_SUN: '1000000', DESK_MAX_SUN: '100000000',
  }, { DEVNET_CUSTOMERS: '10' });
  const { startRoles } = await import('../../../services/roles');
  roles = await startRoles(stack.rt, ['desk-returner', 'stats']);
  await startWatcher();
  tronWeb = new TronWeb({ fullHost: stack.devnet.url });
  reader = ChainReader.fromConfig(stack.rt.cfg);
  desk = (await call(stack.base, 'GET', '/v1/transfer-desk')).body;
});

afterAll(async () => {
  await stopWatcher();
  await Promise.allSettled(roles.map((r) => r.stop()));
  // Every journal balances and the desk account's balance is the sum of its lines (nothing kept, nothing owed twice).
  if (stack) await assertLedgerInvariants(stack.rt.pool);
  await stack?.stop();
});

/** TRX from devnet customer `from` to the desk, with a memo when given, as a wallet app sends it. */
async function pay(from: number, sun: number, memo?: string): Promise<string> {
  const tw = signerOf(from);
  let tx: any = await tw.transactionBuilder.sendTrx(desk.address, sun, wallet(from).address);
  if (memo !== undefined) tx = await tw.transactionBuilder.addUpdateData(tx, memo, 'utf8', { txLocal: true });
  const sent: any = await tw.trx.sendRawTransaction(await tw.trx.sign(tx));
  if (!sent.result) throw new Error(`payment refused: ${JSON.stringify(sent)}`);
  return sent.transaction.txID;
}

async function deskOrder(txid: string, done: (o: any) => boolean, timeoutMs = 60_000): Promise<any> {
  let last: any = null;
  return eventually(async () => {
    const res = await call(stack.base, 'GET', `/v1/transfer-desk/orders/${txid}`);
    last = res.status === 200 ? { status: res.body.status, failure: res.body.failure, allocations: res.body.delegate_hashes } : res.status;
    return res.status === 200 && done(res.body) ? res.body : undefined;
  }, timeoutMs, `desk order of ${txid} (last seen ${JSON.stringify(last)})`).catch((err: Error) => {
    throw new Error(`${err.message}; last seen ${JSON.stringify(last)}`);
  });
}

async function paymentRow(txid: string): Promise<any> {
  return (await stack.rt.pool.query('SELECT * FROM desk_payments WHERE txid = $1', [txid])).rows[0];
}

const energyLimit = async (address: string) => Number((await tronWeb.trx.getAccountResources(address)).EnergyLimit ?? 0);

/** Every TRX transfer from the desk address to `to` on chain, from block `from` to the head. */
async function returnsOnChain(to: string, from: number): Promise<Array<{ txid: string; amount: bigint }>> {
  const head = (await reader.nowBlock('full')).number;
  const out: Array<{ txid: string; amount: bigint }> = [];
  for (let start = from; start <= head; start += 100) {
    const blocks = await reader.blockRange(start, Math.min(head + 1, start + 100), 'full');
    for (const b of blocks) {
      for (const tx of b.transactions) {
        if (tx.type === 'TransferContract' && tx.owner === desk.address && tx.to === to) out.push({ txid: tx.txid, amount: tx.amountSun ?? 0n });
      }
    }
  }
  return out;
}

/** The payment's order failed (3048 unless said), and V less the return fee went back to the sender on chain exactly once. */
async function expectReturnedOnce(txid: string, from: number, sun: number, refusal: string, failure = 3048): Promise<void> {
  const failed = await deskOrder(txid, (o) => o.status === 'failed', 90_000);
  expect(failed.failure.code).toBe(failure);
  const row = await eventually(async () => {
    const r = await paymentRow(txid);
    return r?.status === 'returned' ? r : undefined;
  }, 60_000, `return of ${txid}`);
  expect(row.refusal).toBe(refusal);
  const refund = Number(row.refund_sun);
  if (failure === 3048) expect(failed.refunded_amount_sun).toBe(refund);
  expect(refund).toBeGreaterThan(0);
  expect(refund).toBeLessThanOrEqual(sun);
  const info: any = await tronWeb.trx.getTransaction(row.return_txid);
  expect(info.raw_data.contract[0].type).toBe('TransferContract');
  const value = info.raw_data.contract[0].parameter.value;
  expect(TronWeb.address.fromHex(value.owner_address)).toBe(desk.address);
  expect(TronWeb.address.fromHex(value.to_address)).toBe(wallet(from).address);
  expect(value.amount).toBe(refund);
  const onChain = (await returnsOnChain(wallet(from).address, Number(row.block_number))).filter((r) => r.amount === BigInt(refund));
  expect(onChain.map((r) => r.txid)).toEqual([row.return_txid]);
}

test('GET /v1/transfer-desk publishes the terms: the 5m row plus the markup, the bounds and the confirmations', async () => {
  expect(desk).toMatchObject({
    network: 'nile', address: stack.rt.cfg.DESK_ADDRESS, price_sun_per_unit: 50, tier: '5m', duration_seconds: 300,
    min_sun: 1_000_000, max_sun: 100_000_000, confirmations_required: CONFIRMATIONS,
  });
  expect(desk.address).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
});

test('a payment in range: 404 until confirmed, then one order (source transfer) whose energy lands on the sender, then expires', async () => {
  const sender = wallet(0).address;
  const before = await energyLimit(sender);
  const txid = await pay(0, 3_020_000);
  expect((await call(stack.base, 'GET', `/v1/transfer-desk/orders/${txid}`)).status).toBe(404);
  const active = await deskOrder(txid, (o) => o.status === 'active');
  // floor(3,020,000 / 50) = 60,400, in thousands: 60,000; the rest is the desk's rounding, in pay_amount_sun.
  expect(active).toMatchObject({
    source: 'transfer', resource: 'energy', amount: 60_000, delivered_amount: 60_000, tier: '5m', receiver: sender, price_sun_per_unit: 50,
    pay_amount_sun: 3_020_000, activate_amount_sun: 0, total_amount_sun: 3_020_000, confirm_status: 'confirmed',
  });
  expect(await energyLimit(sender)).toBeGreaterThanOrEqual(before + 60_000);
  const row = await paymentRow(txid);
  expect(row).toMatchObject({ status: 'ordered', order_id: active.id, sender, refusal: null });
  const { rows: owner } = await stack.rt.pool.query('SELECT account_id FROM orders WHERE id = $1', [active.id]);
  expect(owner[0].account_id).toBe(deskAccountId('nile', stack.rt.cfg.BRAND));
  // The rental ends like any order's: 300 s on the 20x clock.
  const expired = await deskOrder(txid, (o) => o.status === 'expired', 90_000);
  expect(expired.reclaim_hash).toMatch(/^[0-9a-f]{64}$/);
});

test('a payment whose order cannot deliver (its delegation never lands): the order fails, the payment goes back once', async () => {
  const txid = await pay(9, 2_500_013);
  // Nothing else is open now (the order above expired): the next broadcast is this order's delegation.
  await stack.devnet.post('/admin/faults', { delay_next_broadcasts: 1, delay_blocks: 100_000 });
  try {
    await expectReturnedOnce(txid, 9, 2_500_013, 'undelivered', 5002);
  } finally {
    await stack.devnet.post('/admin/faults', { clear: true });
  }
}, 120_000);

test('a memo naming an address: that address receives the energy, not the sender', async () => {
  const target = wallet(2).address;
  const before = await energyLimit(target);
  const txid = await pay(1, 2_000_000, `  ${target} `);
  const active = await deskOrder(txid, (o) => o.status === 'active');
  expect(active).toMatchObject({ receiver: target, amount: 40_000, total_amount_sun: 2_000_000 });
  expect(await energyLimit(target)).toBeGreaterThanOrEqual(before + 40_000);
  expect((await paymentRow(txid)).memo).toBe(`  ${target} `);
});

describe('returned payments', () => {
  test('below min_sun and above max_sun: order failed 3048, V less the return fee back on chain, once', async () => {
    const small = await pay(3, 500_001);
    const large = await pay(4, 100_000_007);
    await expectReturnedOnce(small, 3, 500_001, 'below_min');
    await expectReturnedOnce(large, 4, 100_000_007, 'above_max');
  });

  test('a memo naming an inactive address the payment cannot activate: returned', async () => {
    const fresh = (await newWallet()).address;
    const txid = await pay(5, 1_200_003, fresh);
    await expectReturnedOnce(txid, 5, 1_200_003, 'receiver_inactive');
    expect((await tronWeb.trx.getAccount(fresh)).address).toBeUndefined();
  });

  test('USDT sent to the desk is recorded, never credited or ordered', async () => {
    const usdt = await signerOf(6).contract().at(stack.devnet.accounts.usdt_contract);
    const txid = await usdt.transfer(desk.address, '7000000').send({ feeLimit: 100_000_000 });
    const row = await eventually(async () => paymentRow(txid), 60_000, 'USDT payment recorded');
    expect(row).toMatchObject({ asset: 'USDT', status: 'recorded', order_id: null });
    expect(String(row.amount)).toBe('7000000');
    expect((await call(stack.base, 'GET', `/v1/transfer-desk/orders/${txid}`)).status).toBe(404);
  });
});

test('the same payments seen twice (watcher SIGKILLed after appending, then every block re-read): one order, one return each', async () => {
  await stopWatcher();
  const inRange = await pay(7, 1_500_000);
  const below = await pay(8, 900_000);
  const start = (await reader.nowBlock('full')).number;
  // Both payments confirmed before the child watcher starts.
  await eventually(async () => (await reader.nowBlock('full')).number >= start + CONFIRMATIONS + 3, 30_000, 'confirmations');
  const first = startService(stack.world, 'deposit-watcher', { CHAOS_CRASH_POINTS: 'deposit-watcher.after-append:1' });
  await new Promise<void>((resolve) => first.child.once('exit', () => resolve()));
  expect(first.child.signalCode).toBe('SIGKILL');
  const second = startService(stack.world, 'deposit-watcher');
  await second.ready;
  // Delivered (the 5m rental may be over already: the child watchers' start can outlast its 15 s).
  await deskOrder(inRange, (o) => ['active', 'expired'].includes(o.status) && o.delivered_amount === 30_000);
  await eventually(async () => (await paymentRow(below))?.status === 'returned', 60_000, 'below-min returned');
  await second.kill('SIGTERM');
  // From block zero again, in-process: every desk payment of the test is seen once more.
  await stack.rt.pool.query('DELETE FROM deposit_watcher_position');
  await startWatcher();
  const head = (await reader.nowBlock('full')).number;
  await eventually(async () => {
    const { rows } = await stack.rt.pool.query('SELECT next_block FROM deposit_watcher_position');
    return rows.length > 0 && Number(rows[0].next_block) >= head - CONFIRMATIONS;
  }, 60_000, 're-scan');
  await processorCaughtUp(stack.rt);
  const accountId = deskAccountId('nile', stack.rt.cfg.BRAND);
  const { rows: orders } = await stack.rt.pool.query("SELECT memo, count(*)::int AS n FROM orders WHERE account_id = $1 GROUP BY memo", [accountId]);
  expect(orders.every((o) => o.n === 1)).toBe(true);
  const { rows: payments } = await stack.rt.pool.query("SELECT count(*)::int AS n, count(order_id)::int AS ordered FROM desk_payments WHERE asset = 'TRX'");
  expect(payments[0]).toEqual({ n: 8, ordered: 8 });
  expect(orders.reduce((s, o) => s + o.n, 0)).toBe(8);
  const row = await paymentRow(below);
  const returns = await returnsOnChain(wallet(8).address, Number(row.block_number));
  expect(returns.map((r) => r.txid)).toEqual([row.return_txid]);
});

test('desk orders are on order-events and in the desk account\'s stats; ops lists the payments and returns', async () => {
  await processorCaughtUp(stack.rt);
  await statsCaughtUp(stack, 60_000);
  const accountId = deskAccountId('nile', stack.rt.cfg.BRAND);
  const { rows: orders } = await stack.rt.pool.query('SELECT id FROM orders WHERE account_id = $1', [accountId]);
  const { rows: stats } = await stack.rt.pool.query('SELECT DISTINCT order_id FROM stats_orders WHERE account_id = $1', [accountId]);
  // Delivered orders count in the stats (energy bought); returned ones delivered nothing.
  const { rows: delivered } = await stack.rt.pool.query("SELECT id FROM orders WHERE account_id = $1 AND delivered_amount > 0", [accountId]);
  expect(delivered.length).toBe(3);
  // What the desk took in was charged for delivered orders or sent back: its account keeps nothing.
  const { rows: account } = await stack.rt.pool.query('SELECT balance_sun, reserved_sun, owner_address FROM accounts WHERE id = $1', [accountId]);
  expect(account[0]).toMatchObject({ owner_address: null });
  expect([String(account[0].balance_sun), String(account[0].reserved_sun)]).toEqual(['0', '0']);
  expect(stats.map((r) => r.order_id).sort()).toEqual(expect.arrayContaining(delivered.map((r) => r.id).sort()));
  const topic = stack.rt.codec.topicName('orderEvents');
  const types = new Map<string, string[]>();
  await stack.rt.log.scan(topic, await stack.rt.log.endOffsets(topic), async (batch) => {
    for (const r of batch.records) {
      const e: any = await stack.rt.codec.decodeOrderEvent(r.value!);
      if (e.accountId === accountId) types.set(e.order.id, [...(types.get(e.order.id) ?? []), e.type]);
    }
  });
  expect(types.size).toBe(orders.length);
  const below = (await stack.rt.pool.query("SELECT order_id FROM desk_payments WHERE refusal = 'below_min' ORDER BY created_at LIMIT 1")).rows[0].order_id;
  expect(types.get(below)).toEqual(['order.created', 'order.failed']);
  const listed = await runOps(stack.world, ['desk-payments', '--status', 'returned', '--json']);
  expect(listed.code).toBe(0);
  const data = JSON.parse(listed.stdout).data;
  expect(data.map((p: any) => p.refusal).sort()).toEqual(['above_max', 'below_min', 'below_min', 'receiver_inactive', 'undelivered']);
  expect(data.every((p: any) => /^[0-9a-f]{64}$/.test(p.return_txid) && p.refund_sun > 0)).toBe(true);
  expect((await runOps(stack.world, ['desk-payments', '--status', 'nope'])).code).not.toBe(0);
});

test('a replay of the log into an empty database rebuilds the desk payments, their orders and journals identically', async () => {
  await processorCaughtUp(stack.rt);
  const report = await replayAndVerify(stack.rt, templateReplay);
  const byName = new Map(report.tables.map((t) => [t.table, t]));
  expect(byName.get('desk_payments')).toMatchObject({ live: 9, replayed: 9, differences: [] });
  expect(report.tables.filter((t) => t.differences.length > 0)).toEqual([]);
});

test('bad input to the desk routes: 400 and 404 with the envelope', async () => {
  const bad = await call(stack.base, 'GET', '/v1/transfer-desk/orders/not-a-txid');
  expect(bad.status).toBe(400);
  expect(bad.body.error).toMatchObject({ code: 2000, slug: 'invalid_request' });
  expect(bad.body.error.details.field).toMatch(/txid/);
  expect(bad.headers.get('x-request-id')).toMatch(/^req_/);
  const unknown = await call(stack.base, 'GET', `/v1/transfer-desk/orders/${'ab'.repeat(32)}`);
  expect(unknown.status).toBe(404);
  expect(unknown.body.error).toMatchObject({ code: 3001, slug: 'not_found' });
  const query = await call(stack.base, 'GET', '/v1/transfer-desk?x=1');
  expect(query.status).toBe(400);
});
