/**
 * Delivery failures on the devnet: hashes that never land (the devnet holds the broadcasts out of blocks
 * past their expiration) fail the order with 5002 and release the reservation; one of two allocations
 * never landing gives a partial delivery with the pro-rata refund; a provider-filled order answers 3008
 * on reclaim (its fill reported as `market`). Stake parts are capped at 2,000 TRX here so a 65,000-energy order is split in two.
 */
import { assertLedgerInvariants } from '../../support/ledger-invariants';
import { fundedCustomer, orderCall, orderEvents, orderUntil, postOrder, startDeliveryStack, type OrderStack } from '../../support/orders';
import type { Customer } from '../../support/identity';

let stack: OrderStack;
let customer: Customer;
const FUNDS = 100_000_000_000;

beforeAll(async () => {
  stack = await startDeliveryStack('orderfailures', 20, { ORDER_MAX_DELEGATION_SUN: '2000000000' });
  customer = await fundedCustomer(stack, BigInt(FUNDS));
});
afterAll(async () => {
  if (stack) await assertLedgerInvariants(stack.rt.pool);
  await stack?.stop();
});

const holdBroadcasts = (n: number) => stack.devnet.post('/admin/faults', { delay_next_broadcasts: n, delay_blocks: 100_000 });
const balance = async () => (await orderCall(stack, customer, 'GET', '/v1/balance')).body;

async function eventsUntil(orderId: string, type: string): Promise<any[]> {
  const until = Date.now() + 30_000;
  for (;;) {
    const events = await orderEvents(stack, orderId);
    if (events.some((e) => e.type === type)) return events;
    if (Date.now() > until) throw new Error(`no ${type} for ${orderId}: ${JSON.stringify(events.map((e) => e.type))}`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

test('hashes that never land: failed with 5002, order.failed, the reservation released', async () => {
  const before = await balance();
  await holdBroadcasts(2);
  const receiver = stack.devnet.accounts.customers[1].address;
  const created = await postOrder(stack, customer, { resource: 'energy', amount: 65_000, tier: '1h', receiver });
  expect(created.status).toBe(201);
  const failed = await orderUntil(stack, customer, created.body.id, (o) => o.status === 'failed', 60_000);
  expect(failed.failure).toMatchObject({ code: 5002, slug: 'delegation_failed' });
  expect(failed).toMatchObject({ confirm_status: 'confirm_failed', refunded_amount_sun: failed.total_amount_sun, delegate_hashes: [] });
  const events = await eventsUntil(created.body.id, 'order.failed');
  expect(events.map((e) => e.type)).toEqual(['order.failed']);
  expect(events[0].data).toMatchObject({ failure: { code: 5002 }, refund_complete: true });
  expect(await balance()).toMatchObject({ balance_sun: before.balance_sun, reserved_sun: 0 });
  const reclaim = await orderCall(stack, customer, 'POST', `/v1/orders/${created.body.id}/reclaim`);
  expect([reclaim.status, reclaim.body.error.code]).toEqual([409, 3007]);
}, 90_000);

test('one of two allocations never lands: partial, delivered_amount what landed, the rest refunded pro rata', async () => {
  const before = await balance();
  await holdBroadcasts(1);
  const receiver = stack.devnet.accounts.customers[2].address;
  const created = await postOrder(stack, customer, { resource: 'energy', amount: 65_000, tier: '1h', receiver });
  const done = await orderUntil(stack, customer, created.body.id, (o) => o.status === 'active' && o.confirm_status === 'confirmed', 60_000);
  expect(done.partial).toBe(true);
  expect(done.delivered_amount).toBeGreaterThan(0);
  expect(done.delivered_amount).toBeLessThan(65_000);
  expect(done.delegate_hashes).toHaveLength(1);
  const refund = Math.floor((done.pay_amount_sun * (65_000 - done.delivered_amount)) / 65_000);
  expect(done.refunded_amount_sun).toBe(refund);
  expect(done.delegations).toEqual([{ amount: done.delivered_amount, tx_id: done.delegate_hash }]);
  const events = await eventsUntil(created.body.id, 'order.confirmed');
  expect(events[0].data).toMatchObject({ partial: true, delivered_amount: BigInt(done.delivered_amount), refunded_amount_sun: BigInt(refund) });
  expect(await balance()).toMatchObject({ balance_sun: before.balance_sun - done.total_amount_sun + refund, reserved_sun: 0 });
}, 90_000);

test('an order filled by the provider is delivered but answers 3008 on reclaim', async () => {
  stack.rt.cfg.ORDER_SUPPLIER = 'provider';
  const created = await postOrder(stack, customer, { resource: 'energy', amount: 20_000, tier: '1h', receiver: stack.devnet.accounts.customers[3].address });
  stack.rt.cfg.ORDER_SUPPLIER = 'pool';
  expect(created.status).toBe(201);
  const active = await orderUntil(stack, customer, created.body.id, (o) => o.status === 'active' && o.confirm_status === 'confirmed', 60_000);
  // What really filled it: the provider's class, at what the customer pays per unit there (the price row's
  // plus the routing fee, docs/routing-fee.md), so amount x price_sun is the resource charge.
  expect(active.fills).toEqual([{ class: 'market', amount: 20_000, price_sun: Number(active.pay_amount_sun) / 20_000 }]);
  expect(active.fills[0].price_sun).toBeGreaterThan(active.price_sun_per_unit);
  const reclaim = await orderCall(stack, customer, 'POST', `/v1/orders/${created.body.id}/reclaim`);
  expect([reclaim.status, reclaim.body.error.code, reclaim.body.error.slug]).toEqual([409, 3008, 'reclaim_unavailable']);
}, 60_000);
