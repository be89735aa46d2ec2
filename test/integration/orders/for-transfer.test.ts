/**
 * POST /v1/orders with `for_transfer` (contract.md section 11) on the devnet (USDT with a dynamic energy
 * factor): the order buys exactly the sender's shortfall for that transfer, the amount the estimate gives; a
 * sender that already has enough gets 409 3047 and nothing is charged; idempotency holds; the log replayed
 * into an empty database gives the same orders (amounts included). No chain roles: orders stay `allocating`.
 */
import { replayAndVerify } from '../../../services/ops/replay';
import { call, newWallet, ownerViewerEditor, sessionHeaders, signedCall, signUp, type Customer } from '../../support/identity';
import { fundedSender } from '../../support/transfers';
import { assertLedgerInvariants } from '../../support/ledger-invariants';
import { fundedCustomer, orderCall, postOrder, startOrderStack, type OrderStack } from '../../support/orders';
import { templateReplay } from '../../support/world';

jest.setTimeout(120_000);

let stack: OrderStack;
let customer: Customer;
let usdt: string;

beforeAll(async () => {
  stack = await startOrderStack('fortransfer');
  customer = await fundedCustomer(stack, 100_000_000_000n);
  usdt = stack.devnet.accounts.usdt_contract;
  await stack.devnet.post('/admin/energy-factor', { contract: usdt, energy_factor: 34_000 });
});
afterAll(async () => {
  if (stack) await assertLedgerInvariants(stack.rt.pool);
  await stack?.stop();
});

const balance = async () => {
  const { as_of: _at, ...rest } = (await orderCall(stack, customer, 'GET', '/v1/balance')).body;
  return rest;
};

test('the order buys the shortfall the estimate names; enough already answers 3047 and charges nothing; replay gives the same', async () => {
  const bare = await fundedSender(stack.devnet);
  const staked = await fundedSender(stack.devnet, 10_000_000_000); // ~220k energy: covers one new-holder transfer
  const fresh = (await newWallet()).address;
  const holder = stack.devnet.accounts.customers[0].address;

  const estimate = await orderCall(stack, customer, 'POST', '/v1/estimates', { items: [{ from: bare.address, to: fresh, amount: '5000000' }, { from: staked.address, to: holder, amount: 1 }] });
  expect(estimate.status).toBe(200);
  const [need, covered] = estimate.body.data;
  expect(need.energy_to_rent).toBe(130_460);
  expect(covered.energy_to_rent).toBe(0);

  const before = await balance();
  const order = await postOrder(stack, customer, { resource: 'energy', tier: '5m', receiver: bare.address, client_order_id: 'ft-1', for_transfer: { to: fresh, amount: '5000000', token: 'USDT' } });
  expect(order.status).toBe(201);
  expect(order.body).toMatchObject({ resource: 'energy', amount: need.energy_to_rent, tier: '5m', receiver: bare.address, price_sun_per_unit: 40, pay_amount_sun: 130_460 * 40, activate_amount_sun: 0 });
  expect(order.body.total_amount_sun).toBe(need.total_amount_sun);
  const after = await balance();
  expect(after.reserved_sun - before.reserved_sun).toBe(130_460 * 40);

  // The same client_order_id and body: the original order; another transfer under it: 3010.
  const again = await postOrder(stack, customer, { resource: 'energy', tier: '5m', receiver: bare.address, client_order_id: 'ft-1', for_transfer: { to: fresh, amount: '5000000', token: 'USDT' } });
  expect([again.status, again.body.id]).toEqual([200, order.body.id]);
  const other = await postOrder(stack, customer, { resource: 'energy', tier: '5m', receiver: bare.address, client_order_id: 'ft-1', for_transfer: { to: fresh, amount: '6000000' } });
  expect([other.status, other.body.error?.code]).toEqual([409, 3010]);

  // A sender whose own energy covers the transfer: 409 3047, nothing reserved, no order.
  const nothing = await postOrder(stack, customer, { resource: 'energy', tier: '1h', receiver: staked.address, for_transfer: { to: holder, amount: 1 } });
  expect([nothing.status, nothing.body.error?.code, nothing.body.error?.slug]).toEqual([409, 3047, 'nothing_to_rent']);
  expect(await balance()).toEqual(after);
  const listed = await orderCall(stack, customer, 'GET', `/v1/orders?receiver=${staked.address}`);
  expect(listed.body.data).toEqual([]);

  // A max_price_sun below the sized total is refused as for any order.
  const capped = await postOrder(stack, customer, { resource: 'energy', tier: '5m', receiver: bare.address, max_price_sun: 1_000, for_transfer: { to: fresh, amount: 7 } });
  expect([capped.status, capped.body.error?.code]).toEqual([409, 3006]);

  // The log alone rebuilds the same orders (the amount comes from the facts the command carries).
  const report = await replayAndVerify(stack.rt, templateReplay);
  expect(report.tables.filter((t) => t.differences.length > 0)).toEqual([]);
  expect(report.tables.map((t) => t.table)).toContain('orders');
});

test('bad for_transfer input: 400 naming the field, nothing charged', async () => {
  const receiver = stack.devnet.accounts.customers[1].address;
  const to = stack.devnet.accounts.customers[2].address;
  const before = await balance();
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ resource: 'energy', tier: '5m', receiver, amount: 65_000, for_transfer: { to, amount: 1 } }, 'amount'],
    [{ resource: 'bandwidth', tier: '5m', receiver, for_transfer: { to, amount: 1 } }, 'resource'],
    [{ resource: 'energy', tier: '5m', receiver, for_transfer: { to, amount: '1.5' } }, 'for_transfer.amount'],
    [{ resource: 'energy', tier: '5m', receiver, for_transfer: { to: 'Tnope', amount: 1 } }, 'for_transfer.to'],
    [{ resource: 'energy', tier: '5m', receiver, for_transfer: { to, amount: 1, token: 'DOGE' } }, 'for_transfer.token'],
    [{ resource: 'energy', tier: '5m', receiver: stack.devnet.accounts.pool[0].address, for_transfer: { to, amount: 1 } }, 'for_transfer'],
  ];
  for (const [body, field] of cases) {
    const reply = await postOrder(stack, customer, body);
    expect({ field, status: reply.status, got: reply.body.error?.details?.field }).toEqual({ field, status: 400, got: field });
  }
  expect(await balance()).toEqual(before);
});

test('a viewer session estimates (any role; CSRF as for every POST); an API key without orders.read may not', async () => {
  const { viewer } = await ownerViewerEditor(stack.base, customer);
  const items = [{ from: stack.devnet.accounts.customers[0].address, to: stack.devnet.accounts.customers[1].address, amount: 1 }];
  const ok = await call(stack.base, 'POST', '/v1/estimates', { body: { items }, headers: sessionHeaders(viewer) });
  expect(ok.status).toBe(200);
  expect(ok.body.data[0]).toMatchObject({ ok: true, energy_needed: 64_460, receiver_holds_token: true });
  const noCsrf = await call(stack.base, 'POST', '/v1/estimates', { body: { items }, headers: sessionHeaders(viewer, false) });
  expect(noCsrf.status).toBe(403);
  const writer = await signUp(stack.base, ['orders.write']);
  const refused = await signedCall(stack.base, writer.key, 'POST', '/v1/estimates', { items });
  expect([refused.status, refused.body.error?.code]).toEqual([403, 1015]);
});

test('the node unable to simulate: 503 5003 for an estimate and a for_transfer order, nothing charged', async () => {
  const before = await balance();
  const from = stack.devnet.accounts.customers[0].address;
  const to = stack.devnet.accounts.customers[1].address;
  await stack.devnet.post('/admin/faults', { fail_reads_ms: 3_000 });
  try {
    const estimate = await orderCall(stack, customer, 'POST', '/v1/estimates', { items: [{ from, to, amount: 1 }] });
    expect([estimate.status, estimate.body.error?.code]).toEqual([503, 5003]);
    const order = await postOrder(stack, customer, { resource: 'energy', tier: '5m', receiver: from, for_transfer: { to, amount: 1 } });
    expect([order.status, order.body.error?.code]).toEqual([503, 5003]);
  } finally {
    await stack.devnet.post('/admin/faults', { clear: true });
  }
  expect(await balance()).toEqual(before);
});
