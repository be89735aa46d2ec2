/**
 * Delivery on the devnet with the chain roles running (broadcaster, confirmer, scheduler) on a scaled
 * clock: the bot's happy path to expiry, reclaim (202 then 200, idempotent, 3007), activation and
 * bandwidth orders, and a support refund (ops refund-order).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import path from 'node:path';
import { TronWeb } from 'tronweb';
import { readTopic } from '../../support/topic-reader';
import { newWallet } from '../../support/identity';
import { assertLedgerInvariants } from '../../support/ledger-invariants';
import { fundedCustomer, orderCall, orderEvents, orderUntil, postOrder, startDeliveryStack, type OrderStack } from '../../support/orders';
import type { Customer } from '../../support/identity';

const SCALE = 20;
let stack: OrderStack;
let tronWeb: TronWeb;
let customer: Customer;

beforeAll(async () => {
  stack = await startDeliveryStack('orderdelivery', SCALE);
  tronWeb = new TronWeb({ fullHost: stack.devnet.url });
  customer = await fundedCustomer(stack, 100_000_000_000n);
});
afterAll(async () => {
  if (stack) await assertLedgerInvariants(stack.rt.pool);
  await stack?.stop();
});

const energyLimit = async (address: string) => Number((await tronWeb.trx.getAccountResources(address)).EnergyLimit ?? 0);
const delegatedTo = async (receiver: string) => {
  const index: any = await tronWeb.trx.getDelegatedResourceAccountIndexV2(receiver);
  return (index.fromAccounts ?? []).length;
};

test('a bot orders 65,000 energy for 5m to a fresh inactive receiver: delivered, confirmed, then expired and returned', async () => {
  const receiver = (await newWallet()).address;
  const created = await postOrder(stack, customer, { resource: 'energy', amount: 65_000, tier: '5m', receiver, client_order_id: 'happy-1' });
  expect(created.status).toBe(201);
  expect(created.body.activate_amount_sun).toBe(1_500_000);
  const id = created.body.id;

  const active = await orderUntil(stack, customer, id, (o) => o.status === 'active' && o.confirm_status === 'confirmed');
  expect(await energyLimit(receiver)).toBeGreaterThanOrEqual(65_000);
  expect(active).toMatchObject({ confirm_status: 'confirmed', delivered_amount: 65_000, partial: false, refunded_amount_sun: 0 });
  expect(active.delegate_hashes).toHaveLength(1);
  expect(active.delegate_hash).toBe(active.delegate_hashes[0]);
  expect(active.activation.performed).toBe(true);
  expect(active.activation.hash).toMatch(/^[0-9a-f]{64}$/);
  expect(active.fills).toEqual([{ class: 'instant', amount: 65_000, price_sun: 40 }]);
  expect(new Date(active.expires_at).getTime() - new Date(active.delegated_at).getTime()).toBe(300_000);

  const balance = await orderCall(stack, customer, 'GET', '/v1/balance');
  expect(balance.body.reserved_sun).toBe(0);

  const confirmed = await orderEventsUntil(id, ['order.confirmed']);
  expect(confirmed[0].data).toMatchObject({ order_id: id, delegate_hashes: active.delegate_hashes, partial: false });

  // The window ends on the scaled clock (300 s / 20 = 15 s): the delegation is returned, order.expired.
  const expired = await orderUntil(stack, customer, id, (o) => o.status === 'expired', 60_000);
  expect(expired.reclaim_hash).toMatch(/^[0-9a-f]{64}$/);
  expect(await energyLimit(receiver)).toBe(0);
  expect(await delegatedTo(receiver)).toBe(0);
  const events = await orderEventsUntil(id, ['order.confirmed', 'order.expired']);
  expect(events.map((e) => e.type)).toEqual(['order.confirmed', 'order.expired']);

  // Reclaiming an order that expired on its own answers 200.
  const late = await orderCall(stack, customer, 'POST', `/v1/orders/${id}/reclaim`);
  expect([late.status, late.body.status]).toEqual([200, 'expired']);
}, 120_000);

test('reclaim: 202 until the undelegation lands, then 200 with the same reclaim_hash; 3007 with nothing to reclaim', async () => {
  const receiver = (await newWallet()).address;
  const created = await postOrder(stack, customer, { resource: 'energy', amount: 100_000, tier: '1h', receiver });
  const id = created.body.id;
  await orderUntil(stack, customer, id, (o) => o.status === 'active' && o.confirm_status === 'confirmed');

  const first = await orderCall(stack, customer, 'POST', `/v1/orders/${id}/reclaim`, undefined, { 'idempotency-key': 'reclaim-0001' });
  expect(first.status).toBe(202);
  const reclaimed = await orderUntil(stack, customer, id, (o) => o.status === 'reclaimed');
  expect(reclaimed.reclaim_hash).toMatch(/^[0-9a-f]{64}$/);
  expect(reclaimed.refunded_amount_sun).toBe(0);
  // (No pause between the repeats: orderCall signs each with the clock's next millisecond, never a replay.)
  const again = await orderCall(stack, customer, 'POST', `/v1/orders/${id}/reclaim`, undefined, { 'idempotency-key': 'reclaim-0001' });
  const third = await orderCall(stack, customer, 'POST', `/v1/orders/${id}/reclaim`);
  expect([again.status, again.body.reclaim_hash]).toEqual([200, reclaimed.reclaim_hash]);
  expect([third.status, third.body.reclaim_hash]).toEqual([200, reclaimed.reclaim_hash]);
  expect(await energyLimit(receiver)).toBe(0);
  const events = await orderEventsUntil(id, ['order.confirmed', 'order.reclaimed']);
  expect(events[1].data).toMatchObject({ reclaim_hash: reclaimed.reclaim_hash, refunded_amount_sun: 0n });

  // An activation order has nothing delegated: 3007.
  const fresh = (await newWallet()).address;
  const activation = await postOrder(stack, customer, { resource: 'activation', receiver: fresh });
  expect(activation.status).toBe(201);
  const done = await orderUntil(stack, customer, activation.body.id, (o) => o.status === 'confirmed');
  expect(done.activation).toMatchObject({ performed: true, amount_sun: 1_500_000 });
  expect((await tronWeb.trx.getAccount(fresh)).address).toBeDefined();
  const nothing = await orderCall(stack, customer, 'POST', `/v1/orders/${activation.body.id}/reclaim`);
  expect([nothing.status, nothing.body.error.code]).toEqual([409, 3007]);
}, 120_000);

test('a bandwidth order to an active receiver raises its bandwidth limit; support refunds it (ops refund-order)', async () => {
  const receiver = stack.devnet.accounts.customers[0].address;
  const before = Number((await tronWeb.trx.getAccountResources(receiver)).NetLimit ?? 0);
  const created = await postOrder(stack, customer, { resource: 'bandwidth', amount: 5_000, tier: '1h', receiver });
  expect([created.status, created.body.activate_amount_sun]).toEqual([201, 0]);
  const active = await orderUntil(stack, customer, created.body.id, (o) => o.status === 'active' && o.confirm_status === 'confirmed');
  expect(active.activation.hash).toBeNull();
  expect(Number((await tronWeb.trx.getAccountResources(receiver)).NetLimit ?? 0)).toBeGreaterThanOrEqual(before + 5_000);

  // Support reverses it: ./bin/ops refund-order, order.refunded and a matching balance.credited.
  const balanceBefore = (await orderCall(stack, customer, 'GET', '/v1/balance')).body.balance_sun;
  // Not execFileSync: the processor runs in this process and must keep applying meanwhile.
  const { stdout: out } = await promisify(execFile)(path.resolve(__dirname, '../../../bin/ops'), ['refund-order', '--order', active.id, '--reason', 'incident_credit'], {
    env: stack.world.env, encoding: 'utf8',
  });
  expect(JSON.parse(out)).toMatchObject({ id: active.id, status: 'refunded', refunded_amount_sun: active.total_amount_sun });
  expect((await orderCall(stack, customer, 'GET', '/v1/balance')).body.balance_sun).toBe(balanceBefore + active.total_amount_sun);
  const events = await orderEventsUntil(active.id, ['order.confirmed', 'order.refunded']);
  expect(events.find((e) => e.type === 'order.refunded').data).toMatchObject({ reason: 'incident_credit', refund_complete: true });
  const credits = (await readTopic<any>(stack.rt, 'accountEvents')).map((r) => r.value).filter((e) => e.type === 'balance.credited' && e.data.reference_id === active.id);
  expect(credits.map((e) => [e.data.reason, e.data.amount_sun, e.data.tx_hash])).toEqual([['refund', BigInt(active.total_amount_sun), null]]);
}, 90_000);

async function orderEventsUntil(orderId: string, types: string[]): Promise<any[]> {
  const until = Date.now() + 30_000;
  for (;;) {
    const events = await orderEvents(stack, orderId);
    if (types.every((t) => events.some((e) => e.type === t))) return events;
    if (Date.now() > until) throw new Error(`events of ${orderId}: ${JSON.stringify(events.map((e) => e.type))}`);
    await new Promise((r) => setTimeout(r, 300));
  }
}
