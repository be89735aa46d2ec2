/**
 * Batches on the devnet with the chain roles and the batch executor running: a mixed batch (activation,
 * a chunked amount, a receiver over max_price_sun, activate:false, an already active receiver), the
 * balance running out part way, cancel while running, idempotency and the request errors. Delivery is
 * read from the chain; batch.completed read from the world's account-events topic.
 */
import type { TronWeb } from 'tronweb';
import { batchUntil as batchUntilIn, completedEvents as completedEventsIn, startBatchStack } from '../../support/batches';
import { newWallet } from '../../support/identity';
import type { Customer } from '../../support/identity';
import { assertLedgerInvariants } from '../../support/ledger-invariants';
import { fundedCustomer, orderCall, type OrderStack } from '../../support/orders';
import { eventually } from '../../support/world';
import { processorCaughtUp } from '../../support/processor-lag';
import { readTopic } from '../../support/topic-reader';
import { derivedId } from '../../../services/domain/ids';
import { unpublishedCount } from '../../../services/relay/relay';

const prices = JSON.stringify([
  { resource: 'energy', tier: '5m', price_sun_per_unit: 40, min_amount: 10_000, max_amount: 100_000, available: true },
  { resource: 'energy', tier: '1h', price_sun_per_unit: 60, min_amount: 10_000, max_amount: 100_000, available: true },
  { resource: 'bandwidth', tier: '1h', price_sun_per_unit: 600, min_amount: 300, max_amount: 1_000_000, available: true },
]);
const ACTIVATION = 1_500_000;
const TEN_K_1H = 10_000 * 60;

let stack: OrderStack;
let tronWeb: TronWeb;
let rich: Customer;
let stopExecutor: () => Promise<void>;

beforeAll(async () => {
  // Three receivers at a time, so a batch of a dozen is still partly queued when it is cancelled.
  ({ stack, tronWeb, stopExecutor } = await startBatchStack('batches', 3, { ORDER_PRICES: prices }));
  rich = await fundedCustomer(stack, 1_000_000_000n);
}, 120_000);
afterAll(async () => {
  await stopExecutor?.();
  if (stack) await assertLedgerInvariants(stack.rt.pool);
  await stack?.stop();
});

const energyLimit = async (address: string) => Number((await tronWeb.trx.getAccountResources(address)).EnergyLimit ?? 0);
const post = (customer: Customer, body: unknown, headers: Record<string, string> = {}) => orderCall(stack, customer, 'POST', '/v1/batches', body, headers);

const batchUntil = (customer: Customer, id: string, done: (b: any) => boolean, timeoutMs = 90_000) => batchUntilIn(stack, customer, id, done, timeoutMs);
const completedEvents = (batchId: string) => completedEventsIn(stack, batchId);

const item = (b: any, receiver: string) => b.items.find((i: any) => i.receiver === receiver);

/**
 * Nobody waits on a batch's order for its broadcast, so the broadcaster marks none broadcast
 * (domain/sync-wait.ts): each order is on account-commands as exactly three commands, its order.create, an
 * entry (not broadcast) of an order.allocations and one of an order.settlements (a repeat of the same
 * command, e.g. a re-append after a lost acknowledgement, is one command), never in an order.deliver: not
 * `delegated` on the way. The
 * settlement's follow-up (order.deliver activate) applied inline has its result; the order is active with
 * its delegation time.
 */
async function expectThreeCommandsEach(orderIds: string[]): Promise<void> {
  expect(orderIds.length).toBeGreaterThan(0);
  const mine = new Set(orderIds);
  const byOrder = new Map<string, Map<string, string>>();
  for (const { value: c } of await readTopic<any>(stack.rt, 'accountCommands')) {
    const named: string[] = c.type === 'order.create' ? [derivedId('order', c.commandId)] : c.entries ? c.entries.map((e: any) => e.orderId) : [c.orderId];
    for (const orderId of named.filter((o) => mine.has(o))) {
      if (!byOrder.has(orderId)) byOrder.set(orderId, new Map());
      byOrder.get(orderId)!.set(c.commandId, c.entries ? `${c.type}${c.entries.find((e: any) => e.orderId === orderId).broadcast ? ' broadcast' : ''}` : c.type);
    }
  }
  for (const id of orderIds) expect([id, [...(byOrder.get(id)?.values() ?? [])]]).toEqual([id, ['order.create', 'order.allocations', 'order.settlements']]);
  const orders = await stack.rt.pool.query('SELECT status, delegated_at FROM orders WHERE id = ANY($1::text[])', [orderIds]);
  expect(orders.rows.map((o) => [o.status, o.delegated_at !== null])).toEqual(orderIds.map(() => ['active', true]));
  const results = await stack.rt.pool.query('SELECT command_id, command_type FROM command_results WHERE command_id = ANY($1::text[])', [
    orderIds.flatMap((id) => [derivedId('command', 'order-broadcast', id), derivedId('command', 'order-activate', id)]),
  ]);
  const activates = new Set(orderIds.map((id) => derivedId('command', 'order-activate', id)));
  expect(results.rows.filter((r) => !activates.has(r.command_id))).toEqual([]);
  expect(results.rows.map((r) => r.command_type)).toEqual(orderIds.map(() => 'order.deliver'));
}

test('a mixed batch: activated, chunked, over max_price_sun, activate:false, already active; derived summary, chain delivery, batch.completed once', async () => {
  const [r1, r2, r3, r4] = await Promise.all([newWallet(), newWallet(), newWallet(), newWallet()]).then((w) => w.map((x) => x.address));
  const r5 = stack.devnet.accounts.customers[0].address;
  const body = {
    client_batch_id: 'mix-1',
    defaults: { resource: 'energy', amount: 10_000, tier: '1h', client_order_id_prefix: 'mix' },
    items: [{ receiver: r1 }, { receiver: r2, amount: 250_000 }, { receiver: r3, max_price_sun: 1000 }, { receiver: r4, activate: false }, { receiver: r5 }],
  };
  const created = await post(rich, body);
  expect(created.status).toBe(202);
  expect(created.body).toMatchObject({ client_batch_id: 'mix-1', status: 'queued', items_accepted: 5, summary: { total: 5, queued: 5 } });
  expect(created.body.items[0]).toMatchObject({ receiver: r1, tracking_id: `mix-1:${r1}`, status: 'queued', order_ids: [], charged_amount_sun: 0 });
  const before = await orderCall(stack, rich, 'GET', '/v1/balance');
  expect(before.body.reserved_sun).toBe(0);

  const done = await batchUntil(rich, created.body.id, (b) => b.finished_at !== null);
  expect(done.status).toBe('partial');
  expect(done.summary).toEqual({ total: 5, queued: 0, processing: 0, completed: 3, partial: 0, failed: 2, insufficient_funds: 0, cancelled: 0 });
  expect(item(done, r1)).toMatchObject({ status: 'completed', delivered_amount: 10_000, activation: { status: 'done' } });
  expect(item(done, r1).order_ids).toHaveLength(1);
  expect(item(done, r1).charged_amount_sun).toBe(TEN_K_1H + ACTIVATION);
  expect(item(done, r2)).toMatchObject({ status: 'completed', delivered_amount: 250_000 });
  expect(item(done, r2).order_ids).toHaveLength(3);
  expect(item(done, r2).charged_amount_sun).toBe(250_000 * 60 + ACTIVATION);
  expect(item(done, r3)).toMatchObject({ status: 'failed', order_ids: [], charged_amount_sun: 0, failure: { code: 3006, slug: 'price_above_limit' } });
  expect(item(done, r4)).toMatchObject({ status: 'failed', order_ids: [], failure: { code: 3004, slug: 'receiver_not_activated' }, activation: { status: 'skipped' } });
  expect(item(done, r5)).toMatchObject({ status: 'completed', activation: { status: 'not_needed' }, charged_amount_sun: TEN_K_1H });

  // The chain is the truth: what was delivered is delegated, the failed receivers got nothing.
  expect(await energyLimit(r1)).toBeGreaterThanOrEqual(10_000);
  expect(await energyLimit(r2)).toBeGreaterThanOrEqual(250_000);
  expect(await energyLimit(r3)).toBe(0);
  expect(await energyLimit(r4)).toBe(0);
  for (const h of item(done, r2).delegate_hashes) expect((await tronWeb.trx.getTransactionInfo(h)).blockNumber).toBeGreaterThan(0);

  // Each chunk is an ordinary order of the batch.
  const orders = await Promise.all(item(done, r2).order_ids.map((id: string) => orderCall(stack, rich, 'GET', `/v1/orders/${id}`)));
  expect(orders.map((o) => [o.body.source, o.body.batch_id, o.body.amount])).toEqual([
    ['batch', done.id, 100_000], ['batch', done.id, 100_000], ['batch', done.id, 50_000],
  ]);
  expect(orders.map((o) => o.body.client_order_id)).toEqual([`mix-${r2}`, `mix-${r2}-2`, `mix-${r2}-3`]);

  await expectThreeCommandsEach(done.items.flatMap((i: any) => i.order_ids));

  const charged = done.items.reduce((n: number, i: any) => n + i.charged_amount_sun, 0);
  await eventually(async () => (await completedEvents(done.id)).length > 0, 30_000, 'batch.completed');
  // Whatever was in flight is applied and its outbox rows published: a second batch.completed would be on the topic now.
  await processorCaughtUp(stack.rt);
  await eventually(async () => (await unpublishedCount(stack.rt.pool)) === 0, 30_000, 'outbox published');
  const events = await completedEvents(done.id);
  expect(events).toHaveLength(1);
  expect(events[0].data).toMatchObject({
    batch_id: done.id, client_batch_id: 'mix-1', status: 'partial', charged_amount_sun: BigInt(charged),
    summary: { total: 5, completed: 3, partial: 0, failed: 2, insufficient_funds: 0, cancelled: 0 },
  });

  // Reads: cid:, one receiver, the list.
  const byCid = await orderCall(stack, rich, 'GET', '/v1/batches/cid:mix-1');
  expect(byCid.body.id).toBe(done.id);
  const one = await orderCall(stack, rich, 'GET', `/v1/batches/${done.id}?receiver=${r2}`);
  expect(one.body.items.map((i: any) => i.receiver)).toEqual([r2]);
  const list = await orderCall(stack, rich, 'GET', '/v1/batches?limit=1');
  expect(list.body.data.map((b: any) => b.id)).toEqual([done.id]);
  const partial = await orderCall(stack, rich, 'GET', '/v1/batches?status=partial');
  expect(partial.body.data.map((b: any) => b.id)).toContain(done.id);
  const completedOnly = await orderCall(stack, rich, 'GET', '/v1/batches?status=completed');
  expect(completedOnly.body.data.map((b: any) => b.id)).not.toContain(done.id);

  // The same id and body again: 200, the original, nothing charged again; another body: 3010.
  const again = await post(rich, body);
  expect([again.status, again.body.id]).toEqual([200, done.id]);
  const other = await post(rich, { ...body, items: body.items.slice(1) });
  expect([other.status, other.body.error.code]).toEqual([409, 3010]);
}, 180_000);

test('the balance runs out part way: the first receivers delivered, the rest insufficient_funds', async () => {
  const tight = await fundedCustomer(stack, 5_000_000n);
  const receivers = await Promise.all([1, 2, 3, 4, 5].map(() => newWallet().then((w) => w.address)));
  const created = await post(tight, { defaults: { resource: 'energy', amount: 10_000, tier: '1h' }, items: receivers.map((receiver) => ({ receiver })) }, { 'idempotency-key': 'tight-batch-1' });
  expect(created.status).toBe(202);
  const done = await batchUntil(tight, created.body.id, (b) => b.finished_at !== null);
  // 2.1 TRX per receiver (activation included): two fit in 5 TRX.
  expect(done.summary).toMatchObject({ total: 5, completed: 2, insufficient_funds: 3 });
  expect(done.status).toBe('partial');
  for (const i of done.items) {
    if (i.status === 'completed') expect(await energyLimit(i.receiver)).toBeGreaterThanOrEqual(10_000);
    else expect([i.status, i.order_ids, i.failure.code, await energyLimit(i.receiver)]).toEqual(['insufficient_funds', [], 4001, 0]);
  }
  const balance = await orderCall(stack, tight, 'GET', '/v1/balance');
  expect(balance.body.balance_sun).toBe(5_000_000 - 2 * (TEN_K_1H + ACTIVATION));
  // The Idempotency-Key repeats the batch.
  const again = await post(tight, { defaults: { resource: 'energy', amount: 10_000, tier: '1h' }, items: receivers.map((receiver) => ({ receiver })) }, { 'idempotency-key': 'tight-batch-1' });
  expect([again.status, again.body.id]).toEqual([200, done.id]);
}, 180_000);

test('cancel while running: queued receivers cancelled, running ones finish; a second cancel is 3002', async () => {
  const receivers = await Promise.all(Array.from({ length: 12 }, () => newWallet().then((w) => w.address)));
  // The first three (the executor runs three at a time here) are chunked to inactive receivers: their second
  // chunk waits for the activation to land, so they hold every slot while the other nine stay queued.
  const created = await post(rich, {
    client_batch_id: 'cancel-1', defaults: { resource: 'energy', amount: 10_000, tier: '1h' },
    items: receivers.map((receiver, k) => (k < 3 ? { receiver, amount: 150_000 } : { receiver })),
  });
  const id = created.body.id;
  await batchUntil(rich, id, (b) => b.summary.queued < 12, 30_000);
  const cancel = await orderCall(stack, rich, 'POST', `/v1/batches/${id}/cancel`);
  expect(cancel.status).toBe(200);
  expect(cancel.body.id).toBe(id);
  // At most the nine behind the three that hold the slots; fewer when a slot freed before the cancel landed
  // (a loaded machine can be slow to poll). What matters: the cancelled ones got nothing, the rest completed.
  expect(cancel.body.cancelled).toBeGreaterThan(0);
  expect(cancel.body.cancelled).toBeLessThanOrEqual(9);
  const second = await orderCall(stack, rich, 'POST', `/v1/batches/cid:cancel-1/cancel`);
  expect([second.status, second.body.error.code]).toEqual([409, 3002]);
  const done = await batchUntil(rich, id, (b) => b.finished_at !== null);
  expect(done.summary.cancelled).toBe(cancel.body.cancelled);
  expect(done.summary.completed).toBe(12 - cancel.body.cancelled);
  expect(done.items.slice(0, 3).map((i: any) => [i.status, i.delivered_amount, i.order_ids.length])).toEqual(Array(3).fill(['completed', 150_000, 2]));
  for (const i of done.items.filter((x: any) => x.status === 'cancelled')) {
    expect(i.order_ids).toEqual([]);
    expect(await energyLimit(i.receiver)).toBe(0);
  }
}, 180_000);

test('request errors: 2005, 2004, 2006; the same client_batch_id twice at once with different bodies: one 202, one 3010', async () => {
  const [a, b] = await Promise.all([newWallet(), newWallet()]).then((w) => w.map((x) => x.address));
  const items = [{ receiver: a, resource: 'energy', amount: 10_000, tier: '1h' }];
  const noKey = await post(rich, { items });
  expect([noKey.status, noKey.body.error.code]).toEqual([400, 2005]);
  const many = await Promise.all(Array.from({ length: 101 }, () => newWallet().then((w) => ({ receiver: w.address, resource: 'energy', amount: 10_000, tier: '1h' }))));
  const tooMany = await post(rich, { client_batch_id: 'big', items: many });
  expect([tooMany.status, tooMany.body.error.code]).toEqual([422, 2004]);
  const dup = await post(rich, { client_batch_id: 'dup', items: [items[0], items[0]] });
  expect([dup.status, dup.body.error.code]).toEqual([422, 2006]);
  const nothing = await orderCall(stack, rich, 'GET', '/v1/batches/cid:big');
  expect(nothing.status).toBe(404);

  const [x, y] = await Promise.all([
    post(rich, { client_batch_id: 'race-1', items }),
    post(rich, { client_batch_id: 'race-1', items: [{ ...items[0], receiver: b }] }),
  ]);
  expect([x.status, y.status].sort()).toEqual([202, 409]);
  const loser = x.status === 409 ? x : y;
  expect(loser.body.error.code).toBe(3010);
  await batchUntil(rich, 'cid:race-1', (bt) => bt.finished_at !== null);

  // Cursor paging walks every batch once, newest first.
  const seen: string[] = [];
  let cursor: string | null = null;
  do {
    const page: any = await orderCall(stack, rich, 'GET', `/v1/batches?limit=1${cursor ? `&cursor=${cursor}` : ''}`);
    seen.push(...page.body.data.map((bt: any) => bt.id));
    cursor = page.body.next_cursor;
  } while (cursor);
  expect(new Set(seen).size).toBe(seen.length);
  expect(seen.length).toBe(3);

  // The status filter applies before paging: the one partial batch is the oldest, yet a page of one finds it.
  const partialPage = await orderCall(stack, rich, 'GET', '/v1/batches?status=partial&limit=1');
  expect(partialPage.body.data.map((bt: any) => [bt.client_batch_id, bt.status])).toEqual([['mix-1', 'partial']]);
  expect(partialPage.body.next_cursor).toBeNull();
  const completedPage = await orderCall(stack, rich, 'GET', '/v1/batches?status=completed&limit=1');
  expect(completedPage.body.data.map((bt: any) => bt.client_batch_id)).toEqual(['race-1']);
  const nextCompleted = await orderCall(stack, rich, 'GET', `/v1/batches?status=completed&limit=1&cursor=${completedPage.body.next_cursor}`);
  expect(nextCompleted.body.data.map((bt: any) => bt.client_batch_id)).toEqual(['cancel-1']);
  expect(nextCompleted.body.next_cursor).toBeNull();
}, 120_000);
