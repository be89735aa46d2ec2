/**
 * Stake of orders that ended with their money back (issue 10), on the devnet, reading the chain
 * (getdelegatedresourcev2): a refunded order's delegation is taken back at its expiry (the order stays
 * refunded), and an order whose stake was taken back by hand still leaves `active` at expiry; `ops reconcile --repair` on an order whose stake went missing outside the window fails and
 * refunds it through the log (order.failed, order_refund journal, balance.credited), and what of its stake
 * was left on chain is taken back at once. One pool address; broadcaster, confirmer and scheduler run
 * in-process on a clock 10x real time (the 5m tier lasts 30 s). The teardown asserts ops reconcile clean.
 */
import { poolSigners } from '../../../services/chain/pool-keys';
import { ChainWriter, uniqueRef } from '../../../services/chain/writes';
import type { Customer } from '../../support/identity';
import { assertLedgerInvariants } from '../../support/ledger-invariants';
import { runOps } from '../../support/ops-process';
import {
  chainCall, delegatedEnergy as poolDelegatedEnergy, fundedCustomer, orderEvents, orderRow as readOrderRow, postOrder, startDeliveryStack, type OrderStack,
} from '../../support/orders';
import { readTopic } from '../../support/topic-reader';
import { reconcileOnce, reconcileReport } from '../../../services/reconciler/run';
import { assertReconciled, eventually } from '../../support/world';

const SCALE = 10;
/**
 * Clock ms: an order with less than this left is outside the window for a re-delivery (a 1h order, soon after
 * delivery). The repair test has until that order's expiry, 6 minutes of real time, to run; with a 5m order (the
 * window was 290 s) it had 30 s, and on a loaded machine the order had expired before `ops reconcile --repair` ran.
 */
const WAIT_WINDOW_MS = 3_590_000;
let stack: OrderStack;
let customer: Customer;
let poolAddress: string;
let writer: ChainWriter;

beforeAll(async () => {
  stack = await startDeliveryStack('endedstake', SCALE, { ORDER_WAIT_WINDOW_MS: String(WAIT_WINDOW_MS), DEVNET_POOL: '1' }, { DEVNET_POOL: '1' });
  customer = await fundedCustomer(stack, 1_000_000_000n);
  poolAddress = stack.devnet.accounts.pool[0].address;
  writer = ChainWriter.fromConfig(stack.rt.cfg);
}, 120_000);

afterAll(async () => {
  if (stack) await assertLedgerInvariants(stack.rt.pool);
  await stack?.stop();
}, 120_000);

const chain = (p: string, body: Record<string, unknown>) => chainCall(stack, p, body);
const delegatedEnergy = (to: string) => poolDelegatedEnergy(stack, poolAddress, to);
const orderRow = (id: string) => readOrderRow(stack, id);

async function activeOrder(receiver: string, tier = '5m'): Promise<any> {
  const created = await postOrder(stack, customer, { resource: 'energy', amount: 10_000, tier, receiver });
  expect(created.status).toBe(201);
  return eventually(async () => {
    const row = await orderRow(created.body.id);
    return row.status === 'active' && row;
  }, 60_000, 'order active');
}

/** Takes `sun` of the pool's delegation to `receiver` back with the pool key, out of band, and waits for it. */
async function undelegateByHand(receiver: string, sun: bigint, nonce: bigint): Promise<void> {
  const before = await delegatedEnergy(receiver);
  const back = await writer.signUndelegate(poolSigners(stack.rt.cfg)[0], receiver, 'ENERGY', sun, uniqueRef(await writer.refBlock(60_000), nonce));
  expect((await writer.broadcast(back.signedTx)).kind).toBe('accepted');
  await eventually(async () => (await delegatedEnergy(receiver)) === before - sun, 20_000, 'undelegation by hand in a block');
}

test('at expiry: a refunded order\'s stake is undelegated (it stays refunded); an order whose stake is gone leaves active at once', async () => {
  const receiver = stack.devnet.accounts.customers[1].address;
  const goneTo = stack.devnet.accounts.customers[4].address;
  const [active, gone] = await Promise.all([activeOrder(receiver), activeOrder(goneTo)]);
  const sun = BigInt(active.allocations[0].sun);
  expect(await delegatedEnergy(receiver)).toBe(sun);
  // Someone takes the second order's stake back by hand before expiry (the chain would refuse its own undelegation).
  await undelegateByHand(goneTo, BigInt(gone.allocations[0].sun), 910_002n);
  const refund = await stack.bus.submit({ type: 'order.refund', accountId: active.account_id, orderId: active.id, reason: 'dispute' });
  expect(refund.outcome).toBe('applied');
  // A refund is money back, not a reclaim: the stake stays while the window lasts.
  expect(await delegatedEnergy(receiver)).toBe(sun);

  const done = await eventually(async () => {
    const row = await orderRow(active.id);
    return row.reclaimed_at !== null && row;
  }, 90_000, 'stake of the refunded order taken back');
  expect(await delegatedEnergy(receiver)).toBe(0n);
  expect(done.status).toBe('refunded');
  expect(new Date(done.reclaimed_at).getTime()).toBeGreaterThanOrEqual(new Date(done.expires_at).getTime());
  const tx = await chain('gettransactionbyid', { value: done.reclaim_hash });
  const value = tx.raw_data.contract[0].parameter.value;
  expect([tx.ret[0].contractRet, tx.raw_data.contract[0].type, value.owner_address, value.receiver_address, BigInt(value.balance)])
    .toEqual(['SUCCESS', 'UnDelegateResourceContract', poolAddress, receiver, sun]);
  // No order.expired for a refunded order: its close changes nothing the customer sees but the hash.
  expect((await orderEvents(stack, active.id)).map((e) => e.type)).toEqual(['order.confirmed', 'order.refunded']);

  const expired = await eventually(async () => {
    const row = await orderRow(gone.id);
    return row.status === 'expired' && row;
  }, 30_000, 'order with its stake gone expired');
  expect([expired.reclaim_hash, expired.undelegations]).toEqual([null, []]);
  // Left active within a few scheduler passes after expires_at (clock ms; 10 s of clock = 1 s real).
  expect(new Date(expired.reclaimed_at).getTime() - new Date(expired.expires_at).getTime()).toBeLessThan(30_000);
  expect(await delegatedEnergy(goneTo)).toBe(0n);
}, 150_000);

test('ops reconcile --repair: stake missing outside the window fails and refunds the order through the log; what was left is undelegated', async () => {
  const receiver = stack.devnet.accounts.customers[2].address;
  const active = await activeOrder(receiver, '1h');
  const sun = BigInt(active.allocations[0].sun);
  const balanceBefore = BigInt((await stack.rt.pool.query('SELECT balance_sun FROM accounts WHERE id = $1', [active.account_id])).rows[0].balance_sun);
  // Part of the order's stake goes missing (taken back out of band with the pool key).
  const missing = sun / 2n;
  await undelegateByHand(receiver, missing, 910_001n);
  const found = await reconcileOnce(stack.rt);
  expect(found.findings).toBe(1);
  expect(reconcileReport(found)).toMatch(new RegExp(`${receiver}\\s+ENERGY\\s+${sun - missing}\\s+${sun}\\s+-${missing}\\s+DIFFERS`));

  // Outside the window (less than the wait window left): no re-delivery, the order fails and is refunded.
  const expiresAt = new Date(active.expires_at).getTime();
  await eventually(async () => stack.rt.clock.now() > expiresAt - WAIT_WINDOW_MS + 1_000, 10_000, 'order outside the window');
  const repaired = await runOps(stack.world, ['reconcile', '--repair']);
  expect(repaired.stdout).toContain(`"action":"refunded","orderId":"${active.id}"`);
  expect(repaired.stdout).not.toContain('"action":"delegated"');
  expect(repaired.code).toBe(0);

  const failed = await orderRow(active.id);
  expect([failed.status, BigInt(failed.refunded_amount_sun), failed.failure.slug]).toEqual(['failed', BigInt(failed.total_amount_sun), 'delegation_failed']);
  const events = await orderEvents(stack, active.id);
  expect(events.map((e) => e.type)).toEqual(['order.confirmed', 'order.failed']);
  expect(events[1].data).toMatchObject({ refund_complete: true, failure: { slug: 'delegation_failed' } });
  expect(BigInt(events[1].data.refunded_amount_sun)).toBe(BigInt(failed.total_amount_sun));
  const credited = (await readTopic<any>(stack.rt, 'accountEvents')).map((r) => r.value)
    .filter((e) => e.type === 'balance.credited' && e.data.reference_id === active.id);
  expect(credited.map((e) => [e.data.reason, BigInt(e.data.amount_sun)])).toEqual([['refund', BigInt(failed.total_amount_sun)]]);
  const journals = await stack.rt.pool.query("SELECT kind, amount_sun FROM journals WHERE order_id = $1 ORDER BY kind", [active.id]);
  expect(journals.rows.map((j: any) => [j.kind, BigInt(j.amount_sun)])).toEqual([
    ['order_charge', -BigInt(failed.total_amount_sun)], ['order_refund', BigInt(failed.total_amount_sun)],
  ]);
  const balanceAfter = BigInt((await stack.rt.pool.query('SELECT balance_sun FROM accounts WHERE id = $1', [active.account_id])).rows[0].balance_sun);
  expect(balanceAfter - balanceBefore).toBe(BigInt(failed.total_amount_sun));

  // The half still on chain belongs to no paid order any more: taken back at once, before expiry.
  const closed = await eventually(async () => {
    const row = await orderRow(active.id);
    return row.reclaimed_at !== null && row;
  }, 30_000, 'stake of the failed order taken back');
  expect(new Date(closed.reclaimed_at).getTime()).toBeLessThan(expiresAt);
  expect(await delegatedEnergy(receiver)).toBe(0n);
  expect(closed.status).toBe('failed');
  await assertReconciled(stack.rt);
}, 150_000);
