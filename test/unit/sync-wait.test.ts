/**
 * The synchronous-delivery wait of POST /v1/orders (services/api/sync-delivery.ts) is taken only while the
 * broadcaster keeps up: after a wait ran out with its order still allocating, answers do not wait, except
 * one probe at a time; a probe that sees its order broadcast turns waiting back on.
 */
jest.mock('../../services/orders/account-reads', () => ({ orderById: jest.fn() }));
jest.mock('../../services/orders/reads', () => ({ ordersById: jest.fn() }));
import { ordersById } from '../../services/orders/reads';
import { BroadcastWatch, placedOrderAnswer } from '../../services/api/sync-delivery';
import type { Pool } from '../../services/platform/db/pool';

const stored = new Map<string, string>();
(ordersById as jest.Mock).mockImplementation(async (_pool: unknown, ids: string[]) =>
  new Map(ids.filter((id) => stored.has(id)).map((id) => [id, { id, accountId: 'acc_1', status: stored.get(id) }])));
const pool = {} as Pool;
const allocating = (id: string) => ({ id, status: 'allocating' });

test('at most maxWaiting answers wait; the next answers allocating at once, as the processor said', async () => {
  const watch = new BroadcastWatch(pool, 2);
  for (const id of ['o1', 'o2', 'o3']) stored.set(id, 'allocating');
  const waits = [watch.wait('acc_1', 'o1', 5_000), watch.wait('acc_1', 'o2', 5_000)];
  expect(watch.admits()).toBe(false);
  const body = allocating('o3');
  await expect(placedOrderAnswer(pool, watch, 'acc_1', body, 5_000)).resolves.toBe(body);
  stored.set('o1', 'delegated');
  stored.set('o2', 'delegated');
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
  expect((await probe)?.status).toBe('delegated');
  stored.set('b4', 'allocating');
  stored.set('b5', 'allocating');
  const again = [watch.wait('acc_1', 'b4', 5_000), watch.wait('acc_1', 'b5', 5_000)];
  expect(watch.admits()).toBe(true);
  stored.set('b4', 'delegated');
  stored.set('b5', 'delegated');
  await Promise.all(again);
});
