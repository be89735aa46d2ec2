/**
 * The synchronous-delivery wait of POST /v1/orders (services/api/sync-delivery.ts) is taken only while the
 * broadcaster keeps up: after a wait ran out with its order still allocating, answers do not wait, except
 * one probe at a time; a probe that sees its order broadcast turns waiting back on. Waits end on the
 * processor's delivery notification (BroadcastWatch.delivered), or when they run out: nothing polls. A
 * notice that carries the order's answer is answered from, with no read.
 */
jest.mock('../../services/orders/account-reads', () => ({ orderById: jest.fn() }));
jest.mock('../../services/orders/reads', () => ({ ordersById: jest.fn() }));
// The watch's own logic only: an answer read from the store is the order's view, here its id and status.
jest.mock('../../services/domain/orders/view', () => ({ orderJson: (o: { id: string; status: string }) => ({ id: o.id, status: o.status }) }));
import { ordersById } from '../../services/orders/reads';
import { BroadcastWatch, placedOrderAnswer } from '../../services/api/sync-delivery';
import type { Pool } from '../../services/platform/db/pool';

const stored = new Map<string, string>();
(ordersById as jest.Mock).mockImplementation(async (_pool: unknown, ids: string[]) =>
  new Map(ids.filter((id) => stored.has(id)).map((id) => [id, { id, accountId: 'acc_1', status: stored.get(id) }])));
const pool = {} as Pool;
const allocating = (id: string) => ({ id, status: 'allocating' });
/** Notices that name the orders only (a processor from before the answer was carried): the watch reads them. */
const named = (...ids: string[]) => ids.map((orderId) => ({ orderId }));

test('at most maxWaiting answers wait; the next answers allocating at once, as the processor said', async () => {
  const watch = new BroadcastWatch(pool, 2);
  for (const id of ['o1', 'o2', 'o3']) stored.set(id, 'allocating');
  const waits = [watch.wait('acc_1', 'o1', 5_000), watch.wait('acc_1', 'o2', 5_000)];
  expect(watch.admits()).toBe(false);
  const body = allocating('o3');
  await expect(placedOrderAnswer(pool, watch, 'acc_1', body, 5_000)).resolves.toBe(body);
  stored.set('o1', 'delegated');
  stored.set('o2', 'delegated');
  watch.delivered(named('o1', 'o2'));
  expect((await Promise.all(waits)).map((o) => o?.status)).toEqual(['delegated', 'delegated']);
  expect(watch.admits()).toBe(true);
});

test('a wait that ran out (broadcaster behind) leaves one probe at a time; a probe broadcast in time lets answers wait again', async () => {
  const watch = new BroadcastWatch(pool, 16);
  stored.set('b1', 'allocating');
  expect((await watch.wait('acc_1', 'b1', 60))?.status).toBe('allocating');
  expect(watch.admits()).toBe(true); // the probe
  stored.set('b2', 'allocating');
  const probe = watch.wait('acc_1', 'b2', 5_000);
  expect(watch.admits()).toBe(false);
  const body = allocating('b3');
  await expect(placedOrderAnswer(pool, watch, 'acc_1', body, 5_000)).resolves.toBe(body);
  stored.set('b2', 'delegated');
  watch.delivered(named('b2'));
  expect((await probe)?.status).toBe('delegated');
  stored.set('b4', 'allocating');
  stored.set('b5', 'allocating');
  const again = [watch.wait('acc_1', 'b4', 5_000), watch.wait('acc_1', 'b5', 5_000)];
  expect(watch.admits()).toBe(true);
  stored.set('b4', 'delegated');
  stored.set('b5', 'delegated');
  watch.delivered(named('b4', 'b5'));
  await Promise.all(again);
});

test('woken by the delivery notification, not a poll: a named order answers at once, one named before its wait began too, others wait it out', async () => {
  const watch = new BroadcastWatch(pool, 16);
  for (const id of ['c1', 'c2']) stored.set(id, 'allocating');
  const started = Date.now();
  const c1 = watch.wait('acc_1', 'c1', 10_000);
  const c2 = watch.wait('acc_1', 'c2', 400);
  stored.set('c1', 'delegated');
  stored.set('c2', 'delegated');
  // Nothing named: no read happens, however long (a poll would have found both delegated by now).
  await new Promise((r) => setTimeout(r, 150));
  (ordersById as jest.Mock).mockClear();
  watch.delivered(named('c1', 'elsewhere'));
  expect((await c1)?.status).toBe('delegated');
  expect(Date.now() - started).toBeLessThan(2_000);
  // c2 was never named: answered when its wait ran out, as the order then stands.
  expect((await c2)?.status).toBe('delegated');
  expect(Date.now() - started).toBeGreaterThanOrEqual(390);
  expect((ordersById as jest.Mock).mock.calls.map((c) => c[1])).toEqual([['c1'], ['c2']]);
  // Named just before its answer starts waiting (the processor was quicker than the answer's path).
  stored.set('c3', 'delegated');
  watch.delivered(named('c3'));
  const before = Date.now();
  expect((await watch.wait('acc_1', 'c3', 10_000))?.status).toBe('delegated');
  expect(Date.now() - before).toBeLessThan(2_000);
});

test('a notice carrying the answer settles its waiters with it, no read; another account gets nothing of it; a notice before the wait answers at once', async () => {
  const watch = new BroadcastWatch(pool, 16);
  (ordersById as jest.Mock).mockClear();
  const answer = { id: 'd1', status: 'active', delegate_hash: 'ab'.repeat(32) };
  const mine = watch.wait('acc_1', 'd1', 10_000);
  const theirs = watch.wait('acc_2', 'd1', 10_000);
  watch.delivered([{ orderId: 'd1', accountId: 'acc_1', answer }]);
  await expect(mine).resolves.toBe(answer);
  await expect(theirs).resolves.toBeUndefined();
  const early = { id: 'd2', status: 'active', delegate_hash: 'cd'.repeat(32) };
  watch.delivered([{ orderId: 'd2', accountId: 'acc_1', answer: early }]);
  const started = Date.now();
  await expect(watch.wait('acc_1', 'd2', 10_000)).resolves.toBe(early);
  expect(Date.now() - started).toBeLessThan(2_000);
  expect(ordersById as jest.Mock).not.toHaveBeenCalled();
  // The placed order's answer is the notice's, as it came.
  const placed = placedOrderAnswer(pool, watch, 'acc_1', allocating('d3'), 10_000);
  watch.delivered([{ orderId: 'd3', accountId: 'acc_1', answer: { id: 'd3', status: 'active' } }]);
  await expect(placed).resolves.toEqual({ id: 'd3', status: 'active' });
  expect(ordersById as jest.Mock).not.toHaveBeenCalled();
});
