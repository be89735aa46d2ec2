/**
 * The delivery roles' work lists with a cache (services/orders/work-lists.ts): one query per read whatever
 * changed; an unchanged row is the cached order itself (fetched and parsed once), a changed one is read
 * anew, one that left the list leaves the cache. Real orders on the devnet: placed with no broadcaster
 * (they wait in `needs-allocation`), then allocated by the broadcaster (their rows change, they stay in
 * `allocating`), then settled by the confirmer.
 */
import { startRoles, type Stoppable } from '../../../services/roles';
import { workList, WorkListCache } from '../../../services/orders/work-lists';
import type { Pool } from '../../../services/platform/db/pool';
import { fundedCustomer, orderUntil, postOrder, startOrderStack, type OrderStack } from '../../support/orders';
import type { Customer } from '../../support/identity';

let stack: OrderStack;
let customer: Customer;
let roles: Stoppable[] = [];

beforeAll(async () => {
  stack = await startOrderStack('orderworklists', { CHAIN_POLL_MS: '100', ORDER_SYNC_WAIT_MS: '0', ORDER_WAIT_WINDOW_MS: '60000' });
  customer = await fundedCustomer(stack, 100_000_000_000n);
}, 60_000);
afterAll(async () => {
  await Promise.allSettled(roles.map((r) => r.stop()));
  await stack?.stop();
});

/** The stack's pool, counting the statements sent through it. */
function counted(pool: Pool): { pool: Pool; statements: () => number } {
  let n = 0;
  const query = (...args: unknown[]) => {
    n += 1;
    return (pool.query as (...a: unknown[]) => unknown)(...args);
  };
  return { pool: { query } as unknown as Pool, statements: () => n };
}

test('one query per read; unchanged rows come from the cache, changed ones anew, departed ones leave it', async () => {
  const receivers = [stack.devnet.accounts.customers[1].address, stack.devnet.accounts.customers[2].address];
  const ids: string[] = [];
  for (const [i, receiver] of receivers.entries()) {
    const reply = await postOrder(stack, customer, { resource: 'energy', amount: 65_000, tier: '1h', receiver, client_order_id: `wl-${i}` });
    expect(reply.status).toBe(201);
    ids.push(reply.body.id);
  }
  const now = () => stack.rt.clock.now();
  const { pool, statements } = counted(stack.rt.pool);
  const waiting = new WorkListCache();
  const inDelivery = new WorkListCache();

  const first = await workList(pool, 'needs-allocation', now(), 500, waiting);
  expect(statements()).toBe(1);
  expect(first.map((o) => o.id)).toEqual(ids);
  // The same orders as the uncached read gives, column for column.
  expect(first).toEqual(await workList(stack.rt.pool, 'needs-allocation', now(), 500));
  const again = await workList(pool, 'needs-allocation', now(), 500, waiting);
  expect(statements()).toBe(2);
  again.forEach((o, i) => expect(o).toBe(first[i]));
  const before = await workList(pool, 'allocating', now(), 500, inDelivery);
  expect(before.map((o) => o.allocations)).toEqual([[], []]);

  roles = await startRoles(stack.rt, ['broadcaster']);
  for (const id of ids) await orderUntil(stack, customer, id, (o) => o.delegate_hash !== null, 30_000);
  await Promise.all(roles.map((r) => r.stop()));
  roles = [];

  const n = statements();
  expect(await workList(pool, 'needs-allocation', now(), 500, waiting)).toEqual([]);
  expect(waiting.rows.size).toBe(0);
  const after = await workList(pool, 'allocating', now(), 500, inDelivery);
  expect(statements() - n).toBe(2);
  expect(after.map((o) => o.id)).toEqual(ids);
  after.forEach((o, i) => {
    expect(o).not.toBe(before[i]);
    expect(o.allocations.length).toBeGreaterThan(0);
  });
  expect(after).toEqual(await workList(stack.rt.pool, 'allocating', now(), 500));
  (await workList(pool, 'allocating', now(), 500, inDelivery)).forEach((o, i) => expect(o).toBe(after[i]));

  // Settled: out of the list and out of the cache.
  roles = await startRoles(stack.rt, ['confirmer', 'scheduler']);
  for (const id of ids) await orderUntil(stack, customer, id, (o) => o.status === 'active' && o.confirm_status === 'confirmed', 30_000);
  expect(await workList(pool, 'allocating', now(), 500, inDelivery)).toEqual([]);
  expect(inDelivery.rows.size).toBe(0);
}, 120_000);
