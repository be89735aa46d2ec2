/**
 * Auto-refill subscriptions on the devnet, with the chain roles and the subscription watcher running: the
 * endpoints (idempotency, limits, reads, PATCH, DELETE), a receiver burning energy with USDT transfers
 * (contract calls) until under the threshold (one refill, delivered, then a second on the next crossing),
 * suspension for funds and price and the resume when the cause clears. Delivery is read from the chain,
 * events from the world's account-events and order-events topics.
 */
import { newWallet } from '../../support/identity';
import {
  energyOf, eventually, fundedCustomer, fundedReceiver, getSubscription, isDelivered, nextSubscriptionOrder, orderCall, orderUntil, subscriptionEvents,
  subscriptionPrices, usdtAs, useSubscriptionStack, type Customer,
} from '../../support/subscriptions';

const prices = subscriptionPrices({ resource: 'bandwidth', tier: '1h', price_sun_per_unit: 600, min_amount: 300, max_amount: 1_000_000, available: true });
const AMOUNT = 40_000;
const THRESHOLD = 20_000;
const REFILL_SUN = AMOUNT * 60;

const stack = useSubscriptionStack('subscriptions', prices);

const post = (c: Customer, body: unknown) => orderCall(stack, c, 'POST', '/v1/subscriptions', body);
const get = (c: Customer, id: string) => getSubscription(stack, c, id);
const refillBody = (receiver: string, extra: Record<string, unknown> = {}) => ({
  kind: 'refill', receiver, resource: 'energy', amount: AMOUNT, tier: '1h', threshold_amount: THRESHOLD, ...extra,
});

const freeEnergy = async (address: string) => (await energyOf(stack, address)).free;
const eventsOf = (subscriptionId: string) => subscriptionEvents(stack, subscriptionId);

async function subscriptionOrders(c: Customer, id: string): Promise<any[]> {
  const list = await orderCall(stack, c, 'GET', '/v1/orders?limit=200');
  return list.body.data.filter((o: any) => o.subscription_id === id);
}

test('the endpoints: created through the log, idempotent by client_subscription_id, 3010, 3024, reads, PATCH, DELETE, 404 for another account', async () => {
  const customer = await fundedCustomer(stack, 0n);
  const other = await fundedCustomer(stack, 0n);
  const receiver = (await newWallet()).address;
  const body = refillBody(receiver, { client_subscription_id: 'sub-api-1', max_price_sun: 5_000_000 });
  const created = await post(customer, body);
  expect(created.status).toBe(201);
  expect(created.body).toMatchObject({
    client_subscription_id: 'sub-api-1', kind: 'refill', status: 'active', receiver, resource: 'energy', amount: AMOUNT, tier: '1h',
    threshold_amount: THRESHOLD, max_price_sun: 5_000_000, max_refills_per_day: 24, refills_today: 0, last_refill_at: null, last_order_id: null,
    reason: null, daily_fee_sun: null, next_billing_at: null,
  });
  expect(created.body.id).toMatch(/^sub_[0-9a-f]{24}$/);
  const id = created.body.id;

  const again = await post(customer, body);
  expect([again.status, again.body.id]).toEqual([200, id]);
  const changed = await post(customer, { ...body, amount: AMOUNT + 1 });
  expect([changed.status, changed.body.error.code, changed.body.error.slug]).toEqual([409, 3010, 'idempotency_conflict']);
  const twice = await post(customer, refillBody(receiver));
  expect([twice.status, twice.body.error.code, twice.body.error.slug]).toEqual([409, 3024, 'subscription_exists']);
  // Another resource for the same receiver is another subscription.
  expect((await post(customer, refillBody(receiver, { resource: 'bandwidth', amount: 1_000, threshold_amount: 300 }))).status).toBe(201);

  // Bad input: a clear 4xx, nothing stored.
  expect((await post(customer, { ...refillBody(receiver), tier: undefined, resource: 'bandwidth' })).body.error).toMatchObject({ code: 2000, details: { field: 'tier' } });
  expect((await post(customer, refillBody(receiver, { amount: 5 }))).body.error.code).toBe(4002);
  expect((await post(customer, refillBody('Tnot-an-address'))).status).toBe(400);
  expect((await post(customer, { ...refillBody(receiver), extra: 1 })).status).toBe(400);

  expect((await get(customer, id)).body.id).toBe(id);
  expect((await get(customer, 'cid:sub-api-1')).body.id).toBe(id);
  expect((await get(other, id)).status).toBe(404);
  const list = await orderCall(stack, customer, 'GET', `/v1/subscriptions?receiver=${receiver}&kind=refill&limit=1`);
  expect(list.body.data).toHaveLength(1);
  const next = await orderCall(stack, customer, 'GET', `/v1/subscriptions?receiver=${receiver}&kind=refill&limit=1&cursor=${list.body.next_cursor}`);
  expect([...list.body.data, ...next.body.data].map((s: any) => s.resource).sort()).toEqual(['bandwidth', 'energy']);
  expect(next.body.next_cursor).toBeNull();

  const patched = await orderCall(stack, customer, 'PATCH', `/v1/subscriptions/${id}`, { threshold_amount: 15_000, max_price_sun: null, is_paused: true });
  expect(patched.body).toMatchObject({ status: 'paused', reason: 'user', threshold_amount: 15_000, max_price_sun: null });
  expect((await orderCall(stack, other, 'PATCH', `/v1/subscriptions/${id}`, { is_paused: false })).status).toBe(404);
  expect((await orderCall(stack, customer, 'PATCH', `/v1/subscriptions/${id}`, { is_paused: false })).body).toMatchObject({ status: 'active', reason: null });
  expect((await orderCall(stack, other, 'DELETE', `/v1/subscriptions/${id}`)).status).toBe(404);
  expect((await orderCall(stack, customer, 'DELETE', `/v1/subscriptions/${id}`)).status).toBe(204);
  expect((await get(customer, id)).body.status).toBe('ended');
  const ended = await orderCall(stack, customer, 'GET', '/v1/subscriptions?status=ended');
  expect(ended.body.data.map((s: any) => s.id)).toEqual([id]);
  // Ended: the receiver and resource are free again.
  expect((await post(customer, refillBody(receiver))).status).toBe(201);
  await eventually(async () => (await eventsOf(id)).some((e) => e.type === 'subscription.paused'), 30_000, 'subscription.paused');
  expect((await eventsOf(id)).find((e) => e.type === 'subscription.paused').data).toEqual({ subscription_id: id, receiver, reason: 'user' });
}, 120_000);

test('a receiver burning energy with contract calls: one refill per crossing, delivered, subscription.refilled with trigger_available', async () => {
  const customer = await fundedCustomer(stack, 100_000_000n);
  const receiver = await fundedReceiver(stack);
  const created = await post(customer, refillBody(receiver.address));
  expect(created.status).toBe(201);
  const id = created.body.id;

  // No energy at all: the first refill at once.
  const first = await nextSubscriptionOrder(stack, customer, id, 'first refill');
  const delivered = await orderUntil(stack, customer, first, isDelivered, 60_000);
  expect(delivered).toMatchObject({ source: 'subscription', subscription_id: id, amount: AMOUNT, tier: '1h', total_amount_sun: REFILL_SUN });
  expect(await freeEnergy(receiver.address)).toBeGreaterThanOrEqual(AMOUNT);

  // The receiver spends energy on USDT transfers (14,650 each) until under the threshold.
  const usdt = await usdtAs(stack, receiver.privateKey);
  const faucet = stack.devnet.accounts.faucet.address;
  // The watcher may refill within the block of the crossing, before this loop reads the receiver again: stop on
  // either sign. That the second refill came from a real crossing is asserted by its trigger_available below.
  while ((await subscriptionOrders(customer, id)).length === 1 && (await freeEnergy(receiver.address)) >= THRESHOLD) {
    const txid = await usdt.transfer(faucet, 1_000).send({ feeLimit: 50_000_000 });
    await eventually(async () => ((await stack.tronWeb.trx.getTransactionInfo(txid)) as any).blockNumber, 30_000, 'transfer in a block');
  }
  const second = await nextSubscriptionOrder(stack, customer, id, 'second refill', first);
  await orderUntil(stack, customer, second, isDelivered, 60_000);
  expect(await freeEnergy(receiver.address)).toBeGreaterThanOrEqual(THRESHOLD);
  // Settled: no third refill, two orders, two events.
  await new Promise((r) => setTimeout(r, 2_000));
  const orders = await subscriptionOrders(customer, id);
  expect(orders.map((o) => o.id).sort()).toEqual([first, second].sort());
  const sub = (await get(customer, id)).body;
  expect(sub).toMatchObject({ status: 'active', refills_today: 2, last_order_id: second });
  await eventually(async () => (await eventsOf(id)).length >= 2, 30_000, 'two refilled events');
  const events = (await eventsOf(id)).filter((e) => e.type === 'subscription.refilled');
  expect(events.map((e) => e.data.order_id)).toEqual([first, second]);
  expect(events[0].data).toMatchObject({
    subscription_id: id, receiver: receiver.address, resource: 'energy', amount: BigInt(AMOUNT), tier: '1h', trigger_available: 0n,
    threshold_amount: BigInt(THRESHOLD), total_amount_sun: BigInt(REFILL_SUN), refills_today: 1n,
  });
  expect(Number(events[1].data.trigger_available)).toBeLessThan(THRESHOLD);
  expect(Number(events[1].data.trigger_available)).toBeGreaterThan(0);
  expect(Object.keys(events[1].data).sort()).toEqual([
    'amount', 'order_id', 'receiver', 'refills_today', 'resource', 'subscription_id', 'threshold_amount', 'tier', 'total_amount_sun', 'trigger_available',
  ]);
  // The refill is charged as subscription_usage.
  const { rows } = await stack.rt.pool.query('SELECT order_id, kind FROM journals WHERE account_id = $1 AND order_id IS NOT NULL ORDER BY created_at', [customer.accountId]);
  expect(rows.map((r) => r.kind)).toEqual(['subscription_usage', 'subscription_usage']);
}, 240_000);

test('suspended for funds, resumed by a credit; suspended over the price cap, resumed when the cap is raised', async () => {
  const customer = await fundedCustomer(stack, 1_000_000n);
  const receiver = await fundedReceiver(stack);
  const id = (await post(customer, refillBody(receiver.address))).body.id;
  const suspended = await eventually(async () => {
    const s = (await get(customer, id)).body;
    return s.status === 'suspended' ? s : undefined;
  }, 30_000, 'suspended');
  expect(suspended.reason).toBe('insufficient_funds');
  await eventually(async () => (await eventsOf(id)).some((e) => e.type === 'subscription.suspended'), 30_000, 'suspended event');
  const event = (await eventsOf(id)).find((e) => e.type === 'subscription.suspended');
  expect(event.data).toEqual({ subscription_id: id, receiver: receiver.address, reason: 'insufficient_funds', required_sun: BigInt(REFILL_SUN), available_sun: 1_000_000n });

  // A credit: it resumes by itself and refills.
  const credit = await stack.bus.submit({ type: 'balance.adjust', accountId: customer.accountId, amountSun: 10_000_000n, memo: 'top up' });
  expect(credit.outcome).toBe('applied');
  const order = await nextSubscriptionOrder(stack, customer, id, 'refill after credit');
  await orderUntil(stack, customer, order, isDelivered, 60_000);
  expect((await get(customer, id)).body).toMatchObject({ status: 'active', reason: null, refills_today: 1 });
  expect((await eventsOf(id)).filter((e) => e.type === 'subscription.suspended')).toHaveLength(1);

  // Price cap below the refill's total: suspended once; a higher cap and it refills.
  const capped = await fundedCustomer(stack, 100_000_000n);
  const receiver2 = await fundedReceiver(stack);
  const cid = (await post(capped, refillBody(receiver2.address, { max_price_sun: REFILL_SUN - 1 }))).body.id;
  await eventually(async () => (await get(capped, cid)).body.reason === 'price_above_limit', 30_000, 'price suspension');
  await orderCall(stack, capped, 'PATCH', `/v1/subscriptions/${cid}`, { max_price_sun: REFILL_SUN });
  const order2 = await nextSubscriptionOrder(stack, capped, cid, 'refill under the cap');
  expect((await orderUntil(stack, capped, order2, (o) => o.status !== 'allocating', 60_000)).subscription_id).toBe(cid);
  expect((await eventsOf(cid)).filter((e) => e.type === 'subscription.suspended').map((e) => e.data.reason)).toEqual(['price_above_limit']);
}, 240_000);
