/**
 * The dashboard's batches page works with its session, as orders do (contract §5): an editor or owner
 * session with X-CSRF-Token submits and cancels a batch; without the token it is refused (1014) and no
 * batch exists; a viewer reads the list and one batch but may not submit or cancel (1016). No executor
 * runs here, so the receivers stay queued until the cancel.
 */
import { call, newWallet, ownerViewerEditor, sessionHeaders, type Session } from '../../support/identity';
import { assertLedgerInvariants } from '../../support/ledger-invariants';
import { fundedCustomer, startOrderStack, type OrderStack } from '../../support/orders';

let stack: OrderStack;
beforeAll(async () => {
  stack = await startOrderStack('sessionbatches');
});
afterAll(async () => {
  if (stack) await assertLedgerInvariants(stack.rt.pool);
  await stack?.stop();
});

const batch = (clientBatchId: string, receivers: string[]) => ({
  client_batch_id: clientBatchId,
  defaults: { resource: 'energy', amount: 65_000, tier: '5m' },
  items: receivers.map((receiver) => ({ receiver })),
});
const get = (s: Session, path: string) => call(stack.base, 'GET', path, { headers: sessionHeaders(s, false) });

test('an editor session submits and cancels a batch; a viewer reads it but may not submit or cancel; no CSRF token, no batch', async () => {
  const customer = await fundedCustomer(stack, 1_000_000_000n);
  const { owner, viewer, editor } = await ownerViewerEditor(stack.base, customer);
  const receivers = [(await newWallet()).address, (await newWallet()).address, (await newWallet()).address];

  const noCsrf = await call(stack.base, 'POST', '/v1/batches', { body: batch('dash-no-csrf', receivers), headers: sessionHeaders(editor, false) });
  expect([noCsrf.status, noCsrf.body.error.code]).toEqual([403, 1014]);
  const byViewer = await call(stack.base, 'POST', '/v1/batches', { body: batch('dash-viewer', receivers), headers: sessionHeaders(viewer) });
  expect([byViewer.status, byViewer.body.error.code, byViewer.body.error.details]).toEqual([403, 1016, { role: 'editor' }]);
  expect((await get(owner, '/v1/batches')).body.data).toEqual([]);

  // The same batch twice at once from the page (a double click): one batch.
  const [a, b] = await Promise.all([1, 2].map(() => call(stack.base, 'POST', '/v1/batches', { body: batch('dash-1', receivers), headers: sessionHeaders(editor) })));
  expect([a.status, b.status].sort()).toEqual([200, 202]);
  expect(a.body.id).toBe(b.body.id);
  expect(a.body.items.map((i: any) => i.receiver)).toEqual(receivers);

  const listed = await get(viewer, '/v1/batches');
  expect([listed.status, listed.body.data.map((x: any) => x.id)]).toEqual([200, [a.body.id]]);
  const one = await get(viewer, `/v1/batches/cid:dash-1`);
  expect([one.status, one.body.id, one.body.summary.total]).toEqual([200, a.body.id, 3]);

  const viewerCancel = await call(stack.base, 'POST', `/v1/batches/${a.body.id}/cancel`, { headers: sessionHeaders(viewer) });
  expect([viewerCancel.status, viewerCancel.body.error.code]).toEqual([403, 1016]);
  const cancelNoCsrf = await call(stack.base, 'POST', `/v1/batches/${a.body.id}/cancel`, { headers: sessionHeaders(editor, false) });
  expect([cancelNoCsrf.status, cancelNoCsrf.body.error.code]).toEqual([403, 1014]);
  expect((await get(owner, `/v1/batches/${a.body.id}`)).body.summary.queued).toBe(3);

  const cancelled = await call(stack.base, 'POST', `/v1/batches/${a.body.id}/cancel`, { headers: sessionHeaders(editor) });
  expect([cancelled.status, cancelled.body]).toEqual([200, { id: a.body.id, cancelled: 3 }]);
  const after = await get(viewer, `/v1/batches/${a.body.id}`);
  expect([after.body.status, after.body.summary.cancelled]).toEqual(['cancelled', 3]);
  // Nothing was charged: the receivers never ran.
  const balance = await get(owner, '/v1/balance');
  expect([balance.body.balance_sun, balance.body.reserved_sun]).toEqual([1_000_000_000, 0]);
});
