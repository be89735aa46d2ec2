/**
 * Undelegations that expire without landing (the devnet holds the broadcast out of blocks past its
 * expiration): the scheduler sees the head past the stored expiration with no block holding it, signs a
 * fresh undelegation once for that attempt (stored through `order.close` step `signed`, naming what it
 * replaces) and broadcasts only the stored bytes; the order ends reclaimed or expired, the stake back.
 */
import { TronWeb } from 'tronweb';
import { assertLedgerInvariants } from '../../support/ledger-invariants';
import { fundedCustomer, orderCall, orderEvents, orderUntil, postOrder, startDeliveryStack, type OrderStack } from '../../support/orders';
import type { Customer } from '../../support/identity';

let stack: OrderStack;
let tronWeb: TronWeb;
let customer: Customer;

beforeAll(async () => {
  stack = await startDeliveryStack('orderresign', 20);
  tronWeb = new TronWeb({ fullHost: stack.devnet.url });
  customer = await fundedCustomer(stack, 100_000_000_000n);
});
afterAll(async () => {
  if (stack) await assertLedgerInvariants(stack.rt.pool);
  await stack?.stop();
});

/** The next accepted broadcast stays out of blocks for good (past its expiration). */
const holdNextBroadcast = () => stack.devnet.post('/admin/faults', { delay_next_broadcasts: 1, delay_blocks: 100_000 });
const delegatedTo = async (receiver: string) => ((await tronWeb.trx.getDelegatedResourceAccountIndexV2(receiver) as any).fromAccounts ?? []).length;

/** The close sets stored for an order, by purpose, as undelegation tx ids. */
async function closeSets(orderId: string): Promise<Record<string, string[]>> {
  const { rows } = await stack.rt.pool.query("SELECT purpose, command FROM order_signatures WHERE order_id = $1 AND purpose LIKE 'close%'", [orderId]);
  return Object.fromEntries(rows.map((r: any) => [r.purpose, JSON.parse(r.command).txs.map((t: any) => t.txId)]));
}

async function eventTypesUntil(orderId: string, last: string): Promise<any[]> {
  const until = Date.now() + 20_000;
  for (;;) {
    const events = await orderEvents(stack, orderId);
    if (events.some((e) => e.type === last) || Date.now() > until) return events;
    await new Promise((r) => setTimeout(r, 300));
  }
}

async function expectResigned(orderId: string, final: any, receiver: string): Promise<void> {
  const sets = await closeSets(orderId);
  expect(Object.keys(sets).sort()).toEqual(['close', `close:${sets.close[0]}`]);
  const fresh = sets[`close:${sets.close[0]}`];
  expect(fresh).toHaveLength(1);
  expect(fresh[0]).not.toBe(sets.close[0]);
  expect(final.reclaim_hash).toBe(fresh[0]);
  expect(await delegatedTo(receiver)).toBe(0);
}

/** A 20,000-energy order delivered to the devnet's customer `n`, then the next broadcast held. */
async function activeThenHeld(n: number, tier: string): Promise<{ id: string; receiver: string }> {
  const receiver = stack.devnet.accounts.customers[n].address;
  const created = await postOrder(stack, customer, { resource: 'energy', amount: 20_000, tier, receiver });
  expect(created.status).toBe(201);
  await orderUntil(stack, customer, created.body.id, (o) => o.status === 'active' && o.confirm_status === 'confirmed', 30_000);
  await holdNextBroadcast();
  return { id: created.body.id, receiver };
}

test('a reclaim whose undelegation expires unlanded is signed again and ends reclaimed', async () => {
  const { id, receiver } = await activeThenHeld(1, '1h');
  const asked = await orderCall(stack, customer, 'POST', `/v1/orders/${id}/reclaim`);
  expect(asked.status).toBe(202);
  const reclaimed = await orderUntil(stack, customer, id, (o) => o.status === 'reclaimed', 40_000);
  await expectResigned(id, reclaimed, receiver);
  const events = await eventTypesUntil(id, 'order.reclaimed');
  expect(events.map((e) => e.type)).toEqual(['order.confirmed', 'order.reclaimed']);
  expect(events[1].data).toMatchObject({ reclaim_hash: reclaimed.reclaim_hash });
}, 60_000);

test('an expiry whose undelegation expires unlanded is signed again and ends expired', async () => {
  const { id, receiver } = await activeThenHeld(2, '5m');
  // 300 s at scale 20: 15 s to expires_at, then the held undelegation's lifetime before it is signed again.
  const expired = await orderUntil(stack, customer, id, (o) => o.status === 'expired', 50_000);
  await expectResigned(id, expired, receiver);
  const events = await eventTypesUntil(id, 'order.expired');
  expect(events.map((e) => e.type)).toEqual(['order.confirmed', 'order.expired']);
}, 70_000);
