/**
 * Plan subscriptions on the devnet: the first day charged at creation and delegated, the next day charged
 * by the watcher on an injected clock (shifted a day ahead) with the previous day's delegation taken back,
 * a failed charge pausing the plan with its delegation undelegated, unpause charging again, DELETE
 * undelegating; and a refill's daily limit, resumed on the next UTC day of that same injected clock. The
 * chain is read for the delegations; events from the world's account-events topic.
 */
import {
  energyOf, eventually, fundedCustomer, fundedReceiver, getSubscription, isDelivered, nextSubscriptionOrder, orderCall, orderUntil, subscriptionEvents,
  subscriptionPrices, usdtAs, useSubscriptionStack, type Customer,
} from '../../support/subscriptions';

const prices = subscriptionPrices({ resource: 'energy', tier: 'plan', price_sun_per_unit: 90, min_amount: 10_000, max_amount: 1_000_000, available: true });
const THRESHOLD = 30_000;
const AMOUNT = 40_000;
const FEE = AMOUNT * 90;
const DAY = 86_400_000;

let shift = 0;
// The watcher's clock is the one that decides a day is due: the test moves it a day ahead at a time.
const stack = useSubscriptionStack('subplans', prices, (s) => ({ now: () => s.rt.clock.now() + shift, realDelay: (ms) => ms }));

const energyLimit = async (address: string) => (await energyOf(stack, address)).limit;
const get = async (c: Customer, id: string) => (await getSubscription(stack, c, id)).body;
const planEvents = (id: string, type: string) => subscriptionEvents(stack, id, type);

test('prices list a plan row per sold resource', async () => {
  const customer = await fundedCustomer(stack, 0n);
  const list = await orderCall(stack, customer, 'GET', '/v1/prices');
  expect(list.body.data).toContainEqual({ resource: 'energy', tier: 'plan', duration_seconds: 86_400, price_sun_per_unit: 90, min_amount: 10_000, max_amount: 1_000_000, available: true });
});

test('a plan: charged at creation and the next day, paused on a failed charge and undelegated, unpaused, DELETE undelegates', async () => {
  const customer = await fundedCustomer(stack, 2n * BigInt(FEE) + 100_000n);
  const receiver = (await fundedReceiver(stack, { trxSun: 10_000_000, usdt: 0 })).address;

  // Unpaid: 402, nothing stored.
  const broke = await fundedCustomer(stack, 1_000n);
  const refused = await orderCall(stack, broke, 'POST', '/v1/subscriptions', { kind: 'plan', receiver, resource: 'energy', amount: AMOUNT });
  expect([refused.status, refused.body.error.code]).toEqual([402, 4001]);
  expect((await orderCall(stack, broke, 'GET', '/v1/subscriptions')).body.data).toEqual([]);

  const created = await orderCall(stack, customer, 'POST', '/v1/subscriptions', { kind: 'plan', receiver, resource: 'energy', amount: AMOUNT, client_subscription_id: 'plan-1' });
  expect(created.status).toBe(201);
  expect(created.body).toMatchObject({ kind: 'plan', status: 'active', tier: null, threshold_amount: null, daily_fee_sun: FEE });
  const id = created.body.id as string;
  const day1 = created.body.last_order_id as string;
  const firstBilling = Date.parse(created.body.next_billing_at);
  expect(firstBilling - Date.parse(created.body.created_at)).toBe(DAY);
  expect(await orderUntil(stack, customer, day1, isDelivered, 60_000)).toMatchObject({ source: 'subscription', subscription_id: id, tier: '1d', total_amount_sun: FEE });
  expect(await energyLimit(receiver)).toBeGreaterThanOrEqual(AMOUNT);

  // The next day (injected clock): charged in advance, the new day delivered, the previous one taken back.
  shift = DAY;
  const day2 = await nextSubscriptionOrder(stack, customer, id, 'second day charged', day1);
  expect(Date.parse((await get(customer, id)).next_billing_at)).toBe(firstBilling + DAY);
  await orderUntil(stack, customer, day2, isDelivered, 60_000);
  await orderUntil(stack, customer, day1, (o) => o.status === 'reclaimed', 60_000);
  await eventually(async () => (await energyLimit(receiver)) < 2 * AMOUNT, 30_000, 'one delegation held');
  expect(await energyLimit(receiver)).toBeGreaterThanOrEqual(AMOUNT);
  await eventually(async () => (await planEvents(id, 'subscription.charged')).length === 2, 30_000, 'two charged events');
  const charged = await planEvents(id, 'subscription.charged');
  expect(charged[1].data).toEqual({ subscription_id: id, receiver, plan: `${AMOUNT} energy per day`, amount_sun: BigInt(FEE), next_billing_at: new Date(firstBilling + DAY).toISOString() });

  // The third day cannot be paid: paused billing_failed, the delegation undelegated.
  shift = 2 * DAY;
  await eventually(async () => (await get(customer, id)).status === 'paused', 30_000, 'paused');
  expect((await get(customer, id)).reason).toBe('billing_failed');
  await orderUntil(stack, customer, day2, (o) => o.status === 'reclaimed', 60_000);
  await eventually(async () => (await energyLimit(receiver)) === 0, 30_000, 'undelegated');
  await eventually(async () => (await planEvents(id, 'subscription.paused')).length === 1, 30_000, 'paused event');
  expect((await planEvents(id, 'subscription.paused'))[0].data).toEqual({ subscription_id: id, receiver, reason: 'billing_failed' });

  // A credit and unpause (the watcher's clock back in step with the API's): the day charged again and delegated.
  shift = 0;
  expect((await stack.bus.submit({ type: 'balance.adjust', accountId: customer.accountId, amountSun: BigInt(FEE), memo: 'top up' })).outcome).toBe('applied');
  const unpaused = await orderCall(stack, customer, 'PATCH', `/v1/subscriptions/${id}`, { is_paused: false });
  expect(unpaused.body).toMatchObject({ status: 'active', reason: null });
  await orderUntil(stack, customer, unpaused.body.last_order_id, isDelivered, 60_000);
  expect(await energyLimit(receiver)).toBeGreaterThanOrEqual(AMOUNT);

  // DELETE: ended, undelegated, no refund of the day.
  expect((await orderCall(stack, customer, 'DELETE', `/v1/subscriptions/${id}`)).status).toBe(204);
  expect((await get(customer, id)).status).toBe('ended');
  await orderUntil(stack, customer, unpaused.body.last_order_id, (o) => o.status === 'reclaimed', 60_000);
  await eventually(async () => (await energyLimit(receiver)) === 0, 30_000, 'undelegated after DELETE');
  const { rows } = await stack.rt.pool.query("SELECT count(*)::int AS n FROM journals WHERE account_id = $1 AND kind = 'subscription_fee'", [customer.accountId]);
  expect(rows[0].n).toBe(3);
}, 300_000);

test('a refill at its daily limit: suspended daily_limit_reached, resumed and refilled on the next UTC day (injected clock)', async () => {
  shift = 0;
  const customer = await fundedCustomer(stack, 100_000_000n);
  const receiver = await fundedReceiver(stack);
  const created = await orderCall(stack, customer, 'POST', '/v1/subscriptions', {
    kind: 'refill', receiver: receiver.address, resource: 'energy', amount: AMOUNT, tier: '1h', threshold_amount: THRESHOLD, max_refills_per_day: 1,
  });
  const id = created.body.id as string;
  const first = await nextSubscriptionOrder(stack, customer, id, 'first refill');
  await orderUntil(stack, customer, first, isDelivered, 60_000);

  // One USDT transfer (14,650 energy) crosses below 30,000: the day's one refill is used, so suspended.
  const usdt = await usdtAs(stack, receiver.privateKey);
  await usdt.transfer(stack.devnet.accounts.faucet.address, 1_000).send({ feeLimit: 50_000_000 });
  await eventually(async () => (await get(customer, id)).status === 'suspended', 30_000, 'suspended');
  expect((await get(customer, id)).reason).toBe('daily_limit_reached');
  await eventually(async () => (await planEvents(id, 'subscription.suspended')).length === 1, 30_000, 'suspended event');
  expect((await planEvents(id, 'subscription.suspended'))[0].data).toMatchObject({ subscription_id: id, reason: 'daily_limit_reached', required_sun: BigInt(AMOUNT * 60) });

  // The next UTC day on the watcher's clock: resumed, and the receiver (still under) refilled.
  shift = DAY;
  const second = await eventually(async () => {
    const s = await get(customer, id);
    return s.status === 'active' && s.last_order_id !== first ? (s.last_order_id as string) : undefined;
  }, 30_000, 'resumed and refilled');
  await orderUntil(stack, customer, second, isDelivered, 60_000);
  expect((await planEvents(id, 'subscription.refilled')).map((e) => e.data.order_id)).toEqual([first, second]);
  shift = 0;
}, 180_000);
