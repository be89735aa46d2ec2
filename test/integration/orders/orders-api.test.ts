/**
 * Prices, quotes and POST /v1/orders through the log with every synchronous answer, the reads (detail,
 * cid:, not-yours 404, filters, cursor paging, CSV), and 200 simultaneous orders on a balance for 100.
 * Chain delivery is not running here (no broadcaster): orders stay `allocating` with the total reserved.
 */
import { call, newWallet, signedCall, signUp } from '../../support/identity';
import { assertLedgerInvariants } from '../../support/ledger-invariants';
import { fundedCustomer, postOrder, startOrderStack, type OrderStack } from '../../support/orders';

let stack: OrderStack;
beforeAll(async () => {
  stack = await startOrderStack('ordersapi');
});
afterAll(async () => {
  if (stack) await assertLedgerInvariants(stack.rt.pool);
  await stack?.stop();
});

const energy = (receiver: string, extra: Record<string, unknown> = {}) => ({ resource: 'energy', amount: 65_000, tier: '5m', receiver, ...extra });

test('prices list the sold tiers and 1d switched off, never the retired ones', async () => {
  const prices = await call(stack.base, 'GET', '/v1/prices');
  expect(prices.status).toBe(200);
  expect(prices.body.network).toBe('nile');
  const tiers = prices.body.data.map((r: any) => `${r.resource}:${r.tier}:${r.available}`);
  expect(tiers).toEqual(expect.arrayContaining(['energy:5m:true', 'energy:1h:true', 'energy:1d:false', 'bandwidth:5m:true']));
  expect(prices.body.data.some((r: any) => ['15m', '3d', '30d'].includes(r.tier))).toBe(false);
  expect(prices.body.activation_fee_sun).toBe(1_500_000);
});

test('an order to an inactive receiver is charged resource plus activation, reserved until delivery, and idempotent', async () => {
  const customer = await fundedCustomer(stack, 10_000_000_000n);
  const receiver = (await newWallet()).address;
  const created = await postOrder(stack, customer, energy(receiver, { client_order_id: 'bot-1' }));
  expect(created.status).toBe(201);
  expect(created.body).toMatchObject({
    client_order_id: 'bot-1', account_id: customer.accountId, resource: 'energy', amount: 65_000, tier: '5m', duration_seconds: 300, receiver,
    status: 'allocating', confirm_status: 'unconfirmed', price_sun_per_unit: 40, pay_amount_sun: 2_600_000, activate_amount_sun: 1_500_000,
    total_amount_sun: 4_100_000, refunded_amount_sun: 0, delegate_hash: null, delegate_hashes: [], partial: false, source: 'api', failure: null,
  });
  expect(created.body.id).toMatch(/^ord_/);
  const balance = await signedCall(stack.base, customer.key, 'GET', '/v1/balance');
  expect(balance.body).toMatchObject({ balance_sun: 10_000_000_000, reserved_sun: 4_100_000, available_sun: 10_000_000_000 - 4_100_000 });

  // Same client_order_id and body: the original, nothing charged; a different body: 3010. (A retry
  // carries a later timestamp: the same signature twice is a replay, 1002.)
  const again = await postOrder(stack, customer, energy(receiver, { client_order_id: 'bot-1' }));
  expect(again.status).toBe(200);
  expect(again.body.id).toBe(created.body.id);
  const other = await postOrder(stack, customer, energy(receiver, { client_order_id: 'bot-1', amount: 70_000 }));
  expect([other.status, other.body.error.code]).toEqual([409, 3010]);

  // Idempotency-Key: the original result for the same body, 3010 for another.
  const keyed = await postOrder(stack, customer, energy(receiver), 'key-00000001');
  expect(keyed.status).toBe(201);
  const keyedAgain = await postOrder(stack, customer, energy(receiver), 'key-00000001');
  expect([keyedAgain.status, keyedAgain.body.id]).toEqual([201, keyed.body.id]);
  const keyedOther = await postOrder(stack, customer, energy(receiver, { amount: 70_000 }), 'key-00000001');
  expect([keyedOther.status, keyedOther.body.error.code]).toEqual([409, 3010]);
  const badKey = await postOrder(stack, customer, energy(receiver, { memo: 'bad key' }), 'short');
  expect([badKey.status, badKey.body.error.details.field]).toEqual([400, 'Idempotency-Key']);

  const after = await signedCall(stack.base, customer.key, 'GET', '/v1/balance');
  expect(after.body.reserved_sun).toBe(2 * 4_100_000);

  // Detail, cid: lookup, and another account's order answers 404.
  const detail = await signedCall(stack.base, customer.key, 'GET', `/v1/orders/${created.body.id}`);
  expect(detail.status).toBe(200);
  expect(detail.body).toMatchObject({ id: created.body.id, fills: [], delegations: [] });
  const byCid = await signedCall(stack.base, customer.key, 'GET', '/v1/orders/cid:bot-1');
  expect(byCid.body.id).toBe(created.body.id);
  const stranger = await signUp(stack.base);
  expect((await signedCall(stack.base, stranger.key, 'GET', `/v1/orders/${created.body.id}`)).status).toBe(404);
  expect((await signedCall(stack.base, stranger.key, 'GET', '/v1/orders/cid:bot-1')).status).toBe(404);
});

test('every synchronous refusal charges nothing', async () => {
  const customer = await fundedCustomer(stack, 100_000_000n);
  const inactive = (await newWallet()).address;
  const active = stack.devnet.accounts.customers[0].address;
  const expectError = async (body: Record<string, unknown>, status: number, code: number) => {
    const res = await postOrder(stack, customer, body);
    expect([res.status, res.body.error?.code]).toEqual([status, code]);
  };
  await expectError(energy(inactive, { tier: '1d' }), 422, 2003);
  await expectError(energy(inactive, { tier: '15m' }), 422, 2003);
  await expectError(energy(inactive, { amount: 5_000 }), 422, 4002);
  await expectError(energy(inactive, { amount: 10_000_001 }), 422, 4002);
  await expectError(energy(inactive, { activate: false }), 409, 3004);
  await expectError(energy(active, { max_price_sun: 2_599_999 }), 409, 3006);
  await expectError(energy(active, { amount: 10_000_000 }), 402, 4001);
  await expectError({ resource: 'activation', receiver: inactive, amount: 5 }, 400, 2000);
  const badChecksum = active.slice(0, -1) + (active.endsWith('a') ? 'b' : 'a');
  await expectError(energy(badChecksum), 400, 2000);
  await expectError({ ...energy(active), extra: 1 }, 400, 2000);
  // max_price_sun must be an integer, not a string.
  const big = await postOrder(stack, customer, energy(active, { max_price_sun: 9_007_199_254_740_993n.toString() }));
  expect(big.status).toBe(400);
  const raw = await signedCall(stack.base, customer.key, 'GET', '/v1/balance');
  expect(raw.body.reserved_sun).toBe(0);

  const unfunded = await fundedCustomer(stack, 0n);
  const broke = await postOrder(stack, unfunded, energy(active));
  expect([broke.status, broke.body.error.code]).toEqual([402, 4001]);

  // An activation order: no amount, no tier, the fee only.
  const activation = await postOrder(stack, customer, { resource: 'activation', receiver: inactive });
  expect(activation.status).toBe(201);
  expect(activation.body).toMatchObject({ resource: 'activation', amount: null, tier: null, total_amount_sun: 1_500_000, activate_amount_sun: 1_500_000 });
  await expectError({ resource: 'activation', receiver: active }, 400, 2000);
});

test('quotes pin the total for one order; a used, mismatched or unknown quote is refused', async () => {
  const customer = await fundedCustomer(stack, 100_000_000n);
  const receiver = stack.devnet.accounts.customers[1].address;
  const quote = await signedCall(stack.base, customer.key, 'POST', '/v1/quotes', { resource: 'energy', amount: 20_000, tier: '1h', receiver });
  expect(quote.status).toBe(201);
  expect(quote.body).toMatchObject({ resource: 'energy', amount: 20_000, tier: '1h', receiver, price_sun_per_unit: 60, pay_amount_sun: 1_200_000, activate_amount_sun: 0, total_amount_sun: 1_200_000 });
  expect(quote.body.id).toMatch(/^quo_/);
  const mismatch = await postOrder(stack, customer, { resource: 'energy', amount: 20_001, tier: '1h', receiver, quote_id: quote.body.id });
  expect([mismatch.status, mismatch.body.error.code]).toEqual([422, 3011]);
  const used = await postOrder(stack, customer, { resource: 'energy', amount: 20_000, tier: '1h', receiver, quote_id: quote.body.id });
  expect([used.status, used.body.total_amount_sun]).toEqual([201, 1_200_000]);
  const twice = await postOrder(stack, customer, { resource: 'energy', amount: 20_000, tier: '1h', receiver, quote_id: quote.body.id, client_order_id: 'other' });
  expect([twice.status, twice.body.error.code]).toEqual([409, 3012]);
  const unknown = await postOrder(stack, customer, { resource: 'energy', amount: 20_000, tier: '1h', receiver, quote_id: 'quo_nope' });
  expect([unknown.status, unknown.body.error.code]).toEqual([409, 3012]);
  const retired = await signedCall(stack.base, customer.key, 'POST', '/v1/quotes', { resource: 'energy', amount: 20_000, tier: '3d', receiver });
  expect([retired.status, retired.body.error.code]).toEqual([422, 2003]);
});

test('lists filter with AND, page with a stable cursor, and export CSV with every field and the formula prefix', async () => {
  const customer = await fundedCustomer(stack, 1_000_000_000n);
  const [a, b] = [stack.devnet.accounts.customers[2].address, stack.devnet.accounts.customers[3].address];
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) {
    const res = await postOrder(stack, customer, { resource: i % 2 ? 'bandwidth' : 'energy', amount: 20_000, tier: '1h', receiver: i < 3 ? a : b, client_order_id: `c-${i}`, memo: i === 0 ? '=HYPERLINK("x")' : null });
    expect(res.status).toBe(201);
    ids.push(res.body.id);
  }
  const list = async (query: string) => (await signedCall(stack.base, customer.key, 'GET', `/v1/orders${query}`)).body;
  expect((await list('')).data.map((o: any) => o.id)).toEqual([...ids].reverse());
  expect((await list(`?resource=energy&receiver=${a}`)).data.map((o: any) => o.id)).toEqual([ids[2], ids[0]]);
  expect((await list('?client_order_id=c-3')).data.map((o: any) => o.id)).toEqual([ids[3]]);
  expect((await list('?status=allocating&status=failed&resource=bandwidth')).data).toHaveLength(2);
  expect((await list('?status=expired')).data).toHaveLength(0);
  const future = new Date(Date.now() + 3_600_000).toISOString();
  expect((await list(`?created_after=${encodeURIComponent(future)}`)).data).toHaveLength(0);
  expect((await list(`?to=${encodeURIComponent(future)}&from=2020-01-01T00:00:00Z`)).data).toHaveLength(5);
  expect((await signedCall(stack.base, customer.key, 'GET', '/v1/orders?limit=201')).status).toBe(400);

  const first = await list('?limit=2');
  expect(first.data.map((o: any) => o.id)).toEqual([ids[4], ids[3]]);
  await postOrder(stack, customer, { resource: 'energy', amount: 20_000, tier: '1h', receiver: a }); // an insert does not move the cursor
  const second = await list(`?limit=2&cursor=${first.next_cursor}`);
  expect(second.data.map((o: any) => o.id)).toEqual([ids[2], ids[1]]);
  const third = await list(`?limit=2&cursor=${second.next_cursor}`);
  expect(third.data.map((o: any) => o.id)).toEqual([ids[0]]);
  expect(third.next_cursor).toBeNull();

  const csv = await signedCall(stack.base, customer.key, 'GET', '/v1/orders?format=csv&resource=energy&limit=1');
  expect(csv.status).toBe(200);
  expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
  const lines = csv.text.trim().split('\r\n');
  expect(lines[0].split(',').slice(0, 3)).toEqual(['id', 'client_order_id', 'account_id']);
  expect(lines[0]).toContain('activation.performed,activation.hash,activation.amount_sun');
  expect(lines[0]).toContain('failure.code,failure.slug,failure.message,failure.at');
  expect(lines).toHaveLength(1 + 4);
  const withMemo = lines.find((l) => l.startsWith(ids[0]));
  expect(withMemo).toContain(`"'=HYPERLINK(""x"")"`);
});

test('200 simultaneous orders on a balance for 100: exactly 100 succeed, the rest 4001, never negative', async () => {
  const price = 60n * 10_000n;
  const customer = await fundedCustomer(stack, price * 100n);
  const receiver = stack.devnet.accounts.customers[4].address;
  const answers = await Promise.all(
    Array.from({ length: 200 }, (_, i) => postOrder(stack, customer, { resource: 'energy', amount: 10_000, tier: '1h', receiver, client_order_id: `burst-${i}` })),
  );
  const statuses = answers.map((a) => a.status);
  expect(statuses.filter((s) => s === 201)).toHaveLength(100);
  expect(answers.filter((a) => a.status === 402 && a.body.error.code === 4001)).toHaveLength(100);
  const balance = await signedCall(stack.base, customer.key, 'GET', '/v1/balance');
  expect(balance.body).toMatchObject({ balance_sun: Number(price * 100n), reserved_sun: Number(price * 100n), available_sun: 0 });
  await assertLedgerInvariants(stack.rt.pool);
});

