/**
 * Delivery integrity on the devnet (issue 10), with one pool address so every delegation comes from the
 * same key: 200 identical orders at once get 200 distinct transactions and the pool's delegated balance
 * equals their sum; a collision forced by hand is refused before broadcast and never confirmed; five
 * orders at once for one inactive receiver pay one activation; the confirmer refuses its own hash when it
 * failed on chain or landed with another receiver or amount; ops reconcile reports the leak that leaves
 * and --repair removes it; stake taken back inside an order's window is delegated again by --repair.
 * (Expiry cases, and --repair failing an order outside its window: ended-stake.test.ts.) The orders that can
 * only fail at the end of their window wait for a window cut short for that wait (failedPastShortWindow).
 *
 * The broadcaster runs as a loop of this file's (pausable) so hand-made signed sets can be put in place
 * before it looks; the confirmer and scheduler run as roles. The teardown asserts ops reconcile clean.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { TronWeb } from 'tronweb';
import { trxFor, SUN_PER_TRX } from '../../../services/chain/allocation';
import { poolSigners } from '../../../services/chain/pool-keys';
import { ChainWriter, uniqueRef } from '../../../services/chain/writes';
import { Broadcaster } from '../../../services/delivery/broadcaster';
import { appendOnlyBus } from '../../../services/delivery/chain-deps';
import { storeSigned } from '../../../services/delivery/signed-sets';
import type { Command } from '../../../services/domain/commands';
import { derivedId } from '../../../services/domain/ids';
import { startRoles, type Stoppable } from '../../../services/roles';
import { newWallet, type Customer } from '../../support/identity';
import { readTopic } from '../../support/topic-reader';
import { assertLedgerInvariants } from '../../support/ledger-invariants';
import { fundedCustomer, orderEvents, postOrder, startOrderStack, type OrderStack } from '../../support/orders';
import { assertReconciled, eventually } from '../../support/world';

const SCALE = 4;
let stack: OrderStack;
let roles: Stoppable[] = [];
let paused = false;
let stopped = false;
let loop: Promise<void>;
/** The broadcaster pass under way (settled when none is): pausing waits for it, not for a guessed time. */
let pass: Promise<void> = Promise.resolve();
let customers: Customer[];
let poolAddress: string;
let writer: ChainWriter;

beforeAll(async () => {
  stack = await startOrderStack('orderintegrity', {
    CLOCK_SCALE: String(SCALE), CLOCK_ORIGIN_MS: String(Date.now()), CHAIN_POLL_MS: '100', ORDER_WAIT_WINDOW_MS: String(30_000 * SCALE),
    COMMAND_TIMEOUT_MS: '120000', DEVNET_POOL: '1',
  }, { DEVNET_POOL: '1' });
  roles = await startRoles(stack.rt, ['confirmer', 'scheduler']);
  const broadcaster = new Broadcaster({ cfg: stack.rt.cfg, pool: stack.rt.pool, bus: appendOnlyBus(stack.rt), clock: stack.rt.clock });
  loop = (async () => {
    while (!stopped) {
      if (!paused) {
        pass = broadcaster.tick().then(() => undefined, () => undefined);
        await pass;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  customers = await Promise.all(Array.from({ length: 10 }, () => fundedCustomer(stack, 1_000_000_000n)));
  poolAddress = stack.devnet.accounts.pool[0].address;
  writer = ChainWriter.fromConfig(stack.rt.cfg);
}, 120_000);

afterAll(async () => {
  stopped = true;
  await loop;
  await Promise.allSettled(roles.map((r) => r.stop()));
  if (stack) await assertLedgerInvariants(stack.rt.pool);
  await stack?.stop();
}, 120_000);

const chain = (p: string, body: Record<string, unknown>) => stack.devnet.post(`/wallet/${p}`, { ...body, visible: true });
const delegatedEnergy = async (from: string, to: string): Promise<bigint> =>
  ((await chain('getdelegatedresourcev2', { fromAddress: from, toAddress: to })).delegatedResource ?? [])
    .reduce((s: bigint, d: any) => s + BigInt(d.frozen_balance_for_energy ?? 0), 0n);

/**
 * Waits until every transaction is in a block. The sets below must land before their window is cut short:
 * the confirmer, woken by their allocation's commit, would otherwise fail an order whose set the broadcaster
 * had not sent yet, and nothing would ever send it.
 */
async function inBlocks(txIds: string[], timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const infos = await Promise.all(txIds.map((id) => chain('gettransactioninfobyid', { value: id })));
    if (infos.every((i: any) => i.blockNumber > 0)) return;
    if (Date.now() > until) throw new Error(`not in a block in time: ${txIds.filter((_, k) => !(infos[k] as any).blockNumber).join(', ')}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function ordersUntil(ids: string[], done: (status: string) => boolean, timeoutMs: number): Promise<any[]> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const { rows } = await stack.rt.pool.query('SELECT * FROM orders WHERE id = ANY($1)', [ids]);
    if (rows.length === ids.length && rows.every((r: any) => done(r.status))) return rows;
    if (Date.now() > until) throw new Error(`orders not there in time: ${JSON.stringify(rows.map((r: any) => r.status))}`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

const ops = (...args: string[]) =>
  promisify(execFile)(path.resolve(__dirname, '../../../bin/ops'), args, { env: stack.world.env, encoding: 'utf8' }).then(
    (r) => ({ code: 0, out: r.stdout }),
    (err: any) => ({ code: err.code as number, out: `${err.stdout}${err.stderr}` }),
  );

/**
 * A signed POST whose 401 came back later than the signature window lasts in real time (±300 s of the clock,
 * scaled) was refused as late, not as wrong: seen with 200 at once on a loaded machine (19 answered 401 after
 * the window). Signed again and sent again, once per lateness; its client_order_id keeps it one order. A 401
 * inside the window is an answer like any other.
 */
async function postInTime(customer: Customer, body: Record<string, unknown>) {
  for (;;) {
    const sent = Date.now();
    const reply = await postOrder(stack, customer, body);
    if (reply.status !== 401 || Date.now() - sent <= 300_000 / SCALE) return reply;
    console.log(`order ${body.client_order_id}: 401 after ${Date.now() - sent} ms, past the window (${300_000 / SCALE} ms real): sent again`);
  }
}

test('200 identical orders at once from 10 accounts: 200 distinct delegations, the pool delegates exactly their sum', async () => {
  const receiver = stack.devnet.accounts.customers[1].address;
  const before = await delegatedEnergy(poolAddress, receiver);
  const replies = await Promise.all(Array.from({ length: 200 }, (_, i) =>
    postInTime(customers[i % 10], { resource: 'energy', amount: 10_000, tier: '1h', receiver, client_order_id: `same-${i}` })));
  expect(replies.map((r) => r.status)).toEqual(Array(200).fill(201));
  const ids = replies.map((r) => r.body.id);
  const rows = await ordersUntil(ids, (s) => s === 'active', 150_000);

  const delegations = rows.flatMap((r: any) => r.allocations.filter((a: any) => a.kind === 'delegate').map((a: any) => ({ ...a, order: r.id })));
  expect(delegations).toHaveLength(200);
  expect(new Set(delegations.map((d: any) => d.txId)).size).toBe(200);
  expect(new Set(delegations.map((d: any) => d.from))).toEqual(new Set([poolAddress]));
  // Each on chain, in a block, delegating its own stake from the pool to the receiver (ten read at a time: one
  // at a time, the 400 reads were many seconds of a loaded machine).
  for (let i = 0; i < delegations.length; i += 10) {
    await Promise.all(delegations.slice(i, i + 10).map(async (d: any) => {
      const tx = await chain('gettransactionbyid', { value: d.txId });
      const value = tx.raw_data.contract[0].parameter.value;
      expect([tx.ret[0].contractRet, tx.raw_data.contract[0].type, value.owner_address, value.receiver_address, BigInt(value.balance)])
        .toEqual(['SUCCESS', 'DelegateResourceContract', poolAddress, receiver, BigInt(d.sun)]);
      expect((await chain('gettransactioninfobyid', { value: d.txId })).blockNumber).toBeGreaterThan(0);
    }));
  }
  const sum = delegations.reduce((s: bigint, d: any) => s + BigInt(d.sun), 0n);
  expect((await delegatedEnergy(poolAddress, receiver)) - before).toBe(sum);
  // Each confirmed on its own hash.
  const confirmed = (await orderEvents(stack, ids[0])).find((e) => e.type === 'order.confirmed');
  expect(confirmed.data.delegate_hashes).toEqual([rows.find((r: any) => r.id === ids[0]).allocations[0].txId]);
  const hashes = new Map(delegations.map((d: any) => [d.order, d.txId]));
  for (const r of rows) expect(r.allocations.map((a: any) => a.txId)).toEqual([hashes.get(r.id)]);
}, 240_000);

/**
 * Waits for orders that can only end by failing at the end of their wait window, with the window of this
 * process's confirmer (and broadcaster) cut to SHORT_WINDOW_MS for the wait, then restored: what the cases
 * prove is that the confirmer never confirms them and fails them once past the window, not the window's length.
 * A wrong confirmation would come in the first pass that reads their transactions (settleOne confirms before it
 * looks at the window), and a failure past the window still waits for those transactions to be read as landed
 * or hopeless; each case checks they landed. The window was 30 s real for each of the two cases (60 s of the
 * file); the 30 s stays for the cases whose orders must become active inside it.
 */
const SHORT_WINDOW_MS = 4_000;
async function failedPastShortWindow(ids: string[]): Promise<any[]> {
  const window = stack.rt.cfg.ORDER_WAIT_WINDOW_MS;
  stack.rt.cfg.ORDER_WAIT_WINDOW_MS = SHORT_WINDOW_MS;
  try {
    return await ordersUntil(ids, (s) => !['allocating', 'delegated'].includes(s), 90_000);
  } finally {
    stack.rt.cfg.ORDER_WAIT_WINDOW_MS = window;
  }
}

/**
 * An order created while the broadcaster is paused, so a hand-made signed set can be put in place first. The
 * pass under way when it pauses is awaited (a fixed 300 ms was not enough for a pass on a loaded machine: one
 * that began before could still read the new order and sign it).
 */
async function pausedOrder(receiver: string, amount = 10_000): Promise<{ id: string; accountId: string }> {
  paused = true;
  await pass;
  const created = await postOrder(stack, customers[0], { resource: 'energy', amount, tier: '1h', receiver });
  expect(created.status).toBe(201);
  return { id: created.body.id, accountId: created.body.account_id };
}

function allocateCommand(order: { id: string; accountId: string }, txs: any[], ratio: { limit: bigint; weight: bigint }): Command {
  return {
    type: 'order.allocate', commandId: derivedId('command', 'order-allocate', order.id), accountId: order.accountId,
    issuedAt: stack.rt.clock.now(), deadlineAt: null, replyTo: null, orderId: order.id, txs, ratioLimit: ratio.limit, ratioWeight: ratio.weight,
  } as Command;
}

test('a collision forced by hand: the same signed bytes for a second order are refused at the store, never broadcast for it, never confirmed on them', async () => {
  const receiver = stack.devnet.accounts.customers[2].address;
  const first = await postOrder(stack, customers[0], { resource: 'energy', amount: 10_000, tier: '1h', receiver });
  const [a] = await ordersUntil([first.body.id], (s) => s === 'active', 60_000);
  const second = await pausedOrder(receiver);
  try {
    const stolen = a.allocations.map((x: any) => ({ kind: 'delegate', from: x.from, amount: x.amount, sun: BigInt(x.sun), txId: x.txId, signedTx: x.signedTx }));
    const command = allocateCommand(second, stolen, { limit: BigInt(a.ratio_limit), weight: BigInt(a.ratio_weight) });
    expect(await storeSigned(stack.rt.pool, second.id, 'allocate', command, receiver)).toEqual({ kind: 'tx_collision', txId: a.allocations[0].txId, owner: a.id });
    const stored = await stack.rt.pool.query('SELECT count(*)::int AS n FROM order_signatures WHERE order_id = $1', [second.id]);
    expect(stored.rows[0].n).toBe(0);
    // A signer that skipped the store: its command reaches the processor, but the bytes belong to the
    // first order, so the second is never confirmed on them and fails at the end of its window.
    await appendOnlyBus(stack.rt).append([command]);
  } finally {
    paused = false;
  }
  const [b] = await failedPastShortWindow([second.id]);
  expect([b.status, b.refunded_amount_sun]).toEqual(['failed', b.total_amount_sun]);
  expect((await orderEvents(stack, second.id)).map((e) => e.type)).toEqual(['order.failed']);
  const [stillA] = await ordersUntil([a.id], (s) => s === 'active', 1_000);
  expect(stillA.allocations[0].txId).toBe(a.allocations[0].txId);
}, 180_000);

test('5 orders at once for one inactive receiver: one activation on chain, one activation fee charged', async () => {
  const receiver = (await newWallet()).address;
  const balances = async () => Promise.all(customers.slice(5).map(async (c) => (await stack.rt.pool.query('SELECT balance_sun FROM accounts WHERE id = $1', [c.accountId])).rows[0].balance_sun as bigint));
  const before = await balances();
  const replies = await Promise.all(customers.slice(5).map((c) => postOrder(stack, c, { resource: 'energy', amount: 20_000, tier: '1h', receiver })));
  expect(replies.map((r) => [r.status, r.body.activate_amount_sun])).toEqual(Array(5).fill([201, 1_500_000]));
  const rows = await ordersUntil(replies.map((r) => r.body.id), (s) => s === 'active', 120_000);
  const activations = rows.flatMap((r: any) => r.allocations.filter((a: any) => a.kind === 'activate'));
  expect(activations).toHaveLength(1);
  const tx = await chain('gettransactionbyid', { value: activations[0].txId });
  expect([tx.ret[0].contractRet, tx.raw_data.contract[0].parameter.value.to_address]).toEqual(['SUCCESS', receiver]);
  // One transfer reached it: its balance is that one activation's amount.
  const account = await chain('getaccount', { address: receiver });
  expect([account.address, BigInt(account.balance)]).toEqual([receiver, BigInt(activations[0].sun)]);
  // Each paid its energy; only the one that activated kept the activation fee, the others got it back.
  const after = await balances();
  const spent = after.map((b, i) => before[i] - b);
  const pay = rows.map((r: any) => BigInt(r.pay_amount_sun));
  expect(spent.reduce((s, x) => s + x, 0n)).toBe(pay.reduce((s: bigint, x: bigint) => s + x, 0n) + 1_500_000n);
  const back = await stack.rt.pool.query(
    "SELECT count(*)::int AS n FROM journals WHERE kind = 'order_refund' AND memo = 'activation performed by another order' AND order_id = ANY($1)", [rows.map((r: any) => r.id)]);
  expect(back.rows[0].n).toBe(4);
  // The ledger: each order's net charge (its journals) is its energy; one of them, the activator, also the fee.
  const net = await stack.rt.pool.query('SELECT order_id, (-sum(amount_sun))::text AS net FROM journals WHERE order_id = ANY($1) GROUP BY 1', [rows.map((r: any) => r.id)]);
  const activator = rows.find((r: any) => r.allocations.some((a: any) => a.kind === 'activate'));
  expect(new Map(net.rows.map((j: any) => [j.order_id, BigInt(j.net)])))
    .toEqual(new Map(rows.map((r: any) => [r.id, BigInt(r.pay_amount_sun) + (r.id === activator.id ? 1_500_000n : 0n)])));
  const confirmed = (await readTopic<any>(stack.rt, 'accountEvents')).map((r) => r.value)
    .filter((e) => e.type === 'order.confirmed' && rows.some((r: any) => r.id === e.data.order_id));
  expect(confirmed.map((e) => e.data.activation.performed).sort()).toEqual([false, false, false, false, true]);
}, 180_000);

/**
 * A transaction of the pool's that lands in a block and fails there, as java-tron keeps it (contractRet
 * REVERT): a USDT transfer above the pool address's USDT balance (it holds none), signed with its key.
 */
async function revertingTx(receiver: string): Promise<{ txId: string; signedTx: string }> {
  const pool = stack.devnet.accounts.pool[0];
  const tronWeb = new TronWeb({ fullHost: stack.devnet.url, privateKey: pool.private_key });
  const built = await tronWeb.transactionBuilder.triggerSmartContract(
    stack.devnet.accounts.usdt_contract, 'transfer(address,uint256)', { feeLimit: 100_000_000 },
    [{ type: 'address', value: receiver }, { type: 'uint256', value: '1000000' }], pool.address,
  );
  const signed = await tronWeb.trx.sign(built.transaction);
  return { txId: signed.txID, signedTx: JSON.stringify(signed) };
}

test('the confirmer never confirms an order whose own hash failed on chain or landed with another receiver or amount; ops reconcile reports the leak, --repair removes it', async () => {
  const receiver = stack.devnet.accounts.customers[1].address; // its limit is high from the 200 orders
  const elsewhere = stack.devnet.accounts.customers[3].address;
  const signer = poolSigners(stack.rt.cfg)[0];
  const ratio = await writer.ratio(poolAddress, 'ENERGY');
  const sun = trxFor(10_000, ratio) * SUN_PER_TRX;
  const wrongReceiver = await pausedOrder(receiver);
  const wrongAmount = await pausedOrder(receiver);
  const failedOnChain = await pausedOrder(receiver);
  let sent: string[] = [];
  try {
    const ref = await writer.refBlock(60_000);
    const toElsewhere = await writer.signDelegate(signer, elsewhere, 'ENERGY', sun, uniqueRef(ref, 900_001n));
    const half = await writer.signDelegate(signer, receiver, 'ENERGY', sun / 2n, uniqueRef(ref, 900_002n));
    const reverting = await revertingTx(receiver);
    for (const [order, tx] of [[wrongReceiver, toElsewhere], [wrongAmount, half], [failedOnChain, reverting]] as const) {
      const command = allocateCommand(order, [{ kind: 'delegate', from: poolAddress, amount: 10_000, sun, ...tx }], ratio);
      expect(await storeSigned(stack.rt.pool, order.id, 'allocate', command)).toBeNull();
      await appendOnlyBus(stack.rt).append([command]);
    }
    sent = [toElsewhere.txId, half.txId, reverting.txId];
  } finally {
    paused = false;
  }
  await inBlocks(sent, 30_000);
  const rows = await failedPastShortWindow([wrongReceiver.id, wrongAmount.id, failedOnChain.id]);
  expect(rows.map((r: any) => r.status)).toEqual(['failed', 'failed', 'failed']);
  for (const r of rows) {
    const tx = await chain('gettransactioninfobyid', { value: r.allocations[0].txId });
    expect(tx.blockNumber).toBeGreaterThan(0); // it did land: only its content or its result was wrong
    expect((await orderEvents(stack, r.id)).map((e) => e.type)).toEqual(['order.failed']);
  }
  const reverted = await chain('gettransactionbyid', { value: rows.find((r: any) => r.id === failedOnChain.id).allocations[0].txId });
  expect(reverted.ret[0].contractRet).toBe('REVERT');

  // The stake those transactions moved belongs to no order: a leak, reported, then undelegated by --repair.
  const found = await ops('reconcile');
  expect(found.code).toBe(1);
  expect(found.out).toContain(elsewhere);
  expect(found.out).toMatch(new RegExp(`${receiver}\\s+ENERGY\\s+\\d+\\s+\\d+\\s+${sun / 2n}\\s+DIFFERS`));
  const repaired = await ops('reconcile', '--repair');
  expect(repaired.out).toContain('"action":"undelegated"');
  expect(repaired).toMatchObject({ code: 0 });
  expect(await delegatedEnergy(poolAddress, elsewhere)).toBe(0n);
  await assertReconciled(stack.rt);
}, 240_000);

test('stake taken back by hand from an order inside its window: ops reconcile reports the shortfall, --repair delegates it again', async () => {
  const receiver = stack.devnet.accounts.customers[0].address;
  const created = await postOrder(stack, customers[2], { resource: 'energy', amount: 20_000, tier: '1h', receiver });
  const [active] = await ordersUntil([created.body.id], (s) => s === 'active', 60_000);
  const sun = BigInt(active.allocations[0].sun);
  const signer = poolSigners(stack.rt.cfg)[0];
  const back = await writer.signUndelegate(signer, receiver, 'ENERGY', sun, uniqueRef(await writer.refBlock(60_000), 900_004n));
  expect((await writer.broadcast(back.signedTx)).kind).toBe('accepted');
  const held = async () => delegatedEnergy(poolAddress, receiver);
  await eventually(async () => (await held()) === 0n, 60_000, 'undelegation by hand in a block');

  const found = await ops('reconcile');
  expect(found.code).toBe(1);
  expect(found.out).toMatch(new RegExp(`${receiver}\\s+ENERGY\\s+0\\s+${sun}\\s+-${sun}\\s+DIFFERS`));
  const repaired = await ops('reconcile', '--repair');
  expect(repaired.out).toContain('"action":"delegated"');
  expect(repaired).toMatchObject({ code: 0 });
  expect(await held()).toBe(sun);
  // The order is still active and will take back exactly its stake at expiry.
  expect((await ordersUntil([active.id], (s) => s === 'active', 1_000))[0].allocations[0].sun).toBe(active.allocations[0].sun);
}, 180_000);
