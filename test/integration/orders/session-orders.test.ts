/**
 * Contract §5: the dashboard places and reads orders with its session. An editor or owner session with
 * X-CSRF-Token places an order that carries `source: dashboard`; without the token it is refused (1014)
 * and nothing is charged; a viewer reads but may not place (1016). Balance and deposit addresses open
 * to a session too (the dashboard's overview).
 */
import { call, newWallet, ownerViewerEditor, sessionHeaders, signIn } from '../../support/identity';
import { assertLedgerInvariants } from '../../support/ledger-invariants';
import { fundedCustomer, startOrderStack, type OrderStack } from '../../support/orders';

let stack: OrderStack;
beforeAll(async () => {
  stack = await startOrderStack('sessionorders');
});
afterAll(async () => {
  if (stack) await assertLedgerInvariants(stack.rt.pool);
  await stack?.stop();
});

const energy = (receiver: string, cid: string) => ({ resource: 'energy', amount: 65_000, tier: '5m', receiver, client_order_id: cid });

test('an owner session places orders (source dashboard), reads them, its balance and deposit address; no CSRF token, nothing charged', async () => {
  const customer = await fundedCustomer(stack, 1_000_000_000n);
  const owner = await signIn(stack.base, customer.wallet);
  const receiver = (await newWallet()).address;

  const refused = await call(stack.base, 'POST', '/v1/orders', { body: energy(receiver, 'no-csrf'), headers: sessionHeaders(owner, false) });
  expect(refused.status).toBe(403);
  expect(refused.body.error.code).toBe(1014);
  const before = await call(stack.base, 'GET', '/v1/balance', { headers: sessionHeaders(owner, false) });
  expect(before.status).toBe(200);
  expect(before.body.balance_sun).toBe(1_000_000_000);
  expect(before.body.reserved_sun).toBe(0);

  // The same order twice at the same instant: one order, charged once.
  const [a, b] = await Promise.all([1, 2].map(() => call(stack.base, 'POST', '/v1/orders', { body: energy(receiver, 'dash-1'), headers: sessionHeaders(owner) })));
  expect([a.status, b.status].sort()).toEqual([200, 201]);
  expect(a.body.id).toBe(b.body.id);
  expect(a.body.source).toBe('dashboard');

  const listed = await call(stack.base, 'GET', '/v1/orders?client_order_id=dash-1', { headers: sessionHeaders(owner, false) });
  expect(listed.status).toBe(200);
  expect(listed.body.data.map((o: any) => o.id)).toEqual([a.body.id]);
  const one = await call(stack.base, 'GET', `/v1/orders/${a.body.id}`, { headers: sessionHeaders(owner, false) });
  expect(one.body).toMatchObject({ id: a.body.id, source: 'dashboard', receiver });
  const after = await call(stack.base, 'GET', '/v1/balance', { headers: sessionHeaders(owner, false) });
  expect(after.body.reserved_sun).toBe(a.body.total_amount_sun);
  expect(after.body.available_sun).toBe(1_000_000_000 - a.body.total_amount_sun);
  const deposit = await call(stack.base, 'GET', '/v1/deposit-addresses', { headers: sessionHeaders(owner, false) });
  expect(deposit.status).toBe(200);
  expect(deposit.body.data[0].address).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
});

test('a viewer session reads orders but may not place or reclaim one (1016); an editor may', async () => {
  const customer = await fundedCustomer(stack, 1_000_000_000n);
  const { owner, viewer, editor } = await ownerViewerEditor(stack.base, customer);
  const receiver = (await newWallet()).address;

  const denied = await call(stack.base, 'POST', '/v1/orders', { body: energy(receiver, 'viewer-1'), headers: sessionHeaders(viewer) });
  expect(denied.status).toBe(403);
  expect(denied.body.error.code).toBe(1016);
  const placed = await call(stack.base, 'POST', '/v1/orders', { body: energy(receiver, 'editor-1'), headers: sessionHeaders(editor) });
  expect(placed.status).toBe(201);
  expect(placed.body.source).toBe('dashboard');
  const reclaim = await call(stack.base, 'POST', `/v1/orders/${placed.body.id}/reclaim`, { headers: sessionHeaders(viewer) });
  expect(reclaim.status).toBe(403);
  expect(reclaim.body.error.code).toBe(1016);
  const seen = await call(stack.base, 'GET', '/v1/orders', { headers: sessionHeaders(viewer, false) });
  expect(seen.body.data.map((o: any) => o.client_order_id)).toEqual(['editor-1']);
});
