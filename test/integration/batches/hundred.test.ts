/**
 * The batch test: ONE batch of 100 receivers on the devnet with every case mixed in: a chunked
 * large amount, a receiver over max_price_sun, receivers whose bandwidth is short (topped up, some of them
 * not activated yet: the top-up carries the activation), inactive receivers (activated), plain active
 * receivers, and a balance that runs out part way (the rest insufficient_funds). Summary and status must be
 * what the items derive; delivery is read from the chain receiver by receiver.
 */
import type { TronWeb } from 'tronweb';
import { batchUntil as batchUntilIn, completedEvents as completedEventsIn, startBatchStack } from '../../support/batches';
import { newWallet } from '../../support/identity';
import { assertLedgerInvariants } from '../../support/ledger-invariants';
import { fundedCustomer, orderCall, type OrderStack } from '../../support/orders';
import { eventually } from '../../support/world';

const prices = JSON.stringify([
  { resource: 'energy', tier: '1h', price_sun_per_unit: 60, min_amount: 10_000, max_amount: 100_000, available: true },
  { resource: 'bandwidth', tier: '1h', price_sun_per_unit: 600, min_amount: 300, max_amount: 1_000_000, available: true },
]);
const TRX = 1_000_000;
const ENERGY = 10_000 * 60; // 0.6 TRX
const ACTIVATION = 1_500_000;
const TOP_UP = 1_000 * 600; // 0.6 TRX

let stack: OrderStack;
let tronWeb: TronWeb;
let stopExecutor: () => Promise<void>;

beforeAll(async () => {
  // Eight receivers at a time: the batch is worked through roughly in item order, so the balance runs
  // out among the plain receivers at the end, after the special cases at the front were paid.
  ({ stack, tronWeb, stopExecutor } = await startBatchStack('batch100', 8, { ORDER_PRICES: prices }));
}, 120_000);
afterAll(async () => {
  await stopExecutor?.();
  if (stack) await assertLedgerInvariants(stack.rt.pool);
  await stack?.stop();
});

const resources = async (address: string): Promise<Record<string, number>> => (await tronWeb.trx.getAccountResources(address)) as unknown as Record<string, number>;
const wallets = (n: number) => Promise.all(Array.from({ length: n }, () => newWallet().then((w) => w.address)));

test('100 receivers: activated, topped up, chunked, over the cap, the balance running out; summary, status and the chain agree', async () => {
  const [chunked, overCap] = await wallets(2);
  const shortActive = await wallets(10);
  const shortInactive = await wallets(5);
  const inactive = await wallets(15);
  const plain = await wallets(68);
  // Activated up front (receiving TRX costs the receiver no bandwidth: each keeps its 600 free a day).
  for (const to of [chunked, overCap, ...shortActive, ...plain]) await stack.devnet.post('/admin/faucet', { to, trx_sun: 1_000_000 });
  await stack.devnet.post('/admin/blocks', { count: 2 });

  // The front: 15 + 0 + 10 x 1.2 + 5 x 2.7 + 15 x 2.1 = 72 TRX; then 20 of the 68 plain receivers at 0.6.
  const funding = 72 * TRX + 20 * ENERGY;
  const customer = await fundedCustomer(stack, BigInt(funding));
  // The top-ups that carry an activation first: their energy waits for the activation to land, and the
  // rest of the front keeps the other slots busy meanwhile, well before the plain receivers start.
  const items = [
    ...shortInactive.map((receiver) => ({ receiver, bandwidth_amount: 1_000 })),
    { receiver: chunked, amount: 250_000 },
    { receiver: overCap, max_price_sun: 100_000 },
    ...shortActive.map((receiver) => ({ receiver, bandwidth_amount: 1_000 })),
    ...inactive.map((receiver) => ({ receiver })),
    ...plain.map((receiver) => ({ receiver })),
  ];
  expect(items).toHaveLength(100);
  const created = await orderCall(stack, customer, 'POST', '/v1/batches', {
    client_batch_id: 'hundred', defaults: { resource: 'energy', amount: 10_000, tier: '1h', client_order_id_prefix: 'h' }, items,
  });
  expect(created.status).toBe(202);
  expect(created.body).toMatchObject({ status: 'queued', items_accepted: 100, summary: { total: 100, queued: 100 } });

  const done = await batchUntil(customer, created.body.id, (b) => b.finished_at !== null, 240_000);
  const item = (receiver: string) => done.items.find((i: any) => i.receiver === receiver);

  // Summary and status are what the items say.
  const counted: Record<string, number> = { total: 100, queued: 0, processing: 0, completed: 0, partial: 0, failed: 0, insufficient_funds: 0, cancelled: 0 };
  for (const i of done.items) counted[i.status] += 1;
  expect(done.summary).toEqual(counted);
  expect(done.status).toBe('partial');
  expect(done.summary.failed).toBe(1);
  expect(done.summary.insufficient_funds).toBeGreaterThan(0);
  expect(done.summary.completed + done.summary.failed + done.summary.insufficient_funds).toBe(100);

  // The chunked receiver: three ordinary orders of the batch, no top-up (amount_large), all on chain.
  expect(item(chunked)).toMatchObject({ status: 'completed', delivered_amount: 250_000, attempts: 3, bandwidth: { status: 'skipped', order_id: null, skip_reason: 'amount_large' } });
  expect(item(chunked).order_ids).toHaveLength(3);
  expect(item(chunked).charged_amount_sun).toBe(250_000 * 60);
  expect(Number((await resources(chunked)).EnergyLimit ?? 0)).toBeGreaterThanOrEqual(250_000);
  const chunkOrders = await Promise.all(item(chunked).order_ids.map((id: string) => orderCall(stack, customer, 'GET', `/v1/orders/${id}`)));
  expect(chunkOrders.map((o) => [o.body.source, o.body.batch_id, o.body.client_order_id])).toEqual([
    ['batch', done.id, `h-${chunked}`], ['batch', done.id, `h-${chunked}-2`], ['batch', done.id, `h-${chunked}-3`],
  ]);

  // Over max_price_sun: refused at the price in force, nothing charged, nothing delegated.
  expect(item(overCap)).toMatchObject({ status: 'failed', order_ids: [], charged_amount_sun: 0, failure: { code: 3006, slug: 'price_above_limit' } });
  expect(Number((await resources(overCap)).EnergyLimit ?? 0)).toBe(0);

  // Short bandwidth: a bandwidth order of 1,000 first (done, on chain), then the energy.
  for (const r of [...shortActive, ...shortInactive]) {
    const i = item(r);
    const activates = shortInactive.includes(r);
    expect([r, i.status, i.bandwidth.status, i.bandwidth.skip_reason, i.attempts]).toEqual([r, 'completed', 'done', null, 2]);
    expect(i.charged_amount_sun).toBe(TOP_UP + ENERGY + (activates ? ACTIVATION : 0));
    expect(i.activation.status).toBe(activates ? 'done' : 'not_needed');
    const topUp = await orderCall(stack, customer, 'GET', `/v1/orders/${i.bandwidth.order_id}`);
    expect(topUp.body).toMatchObject({ resource: 'bandwidth', amount: 1_000, source: 'batch', batch_id: done.id, client_order_id: `h-${r}-bandwidth` });
    // The top-up is the first order: it carries the activation, the energy order does not pay it again.
    expect(topUp.body.activate_amount_sun).toBe(activates ? ACTIVATION : 0);
    const chain = await resources(r);
    expect(Number(chain.NetLimit ?? 0)).toBeGreaterThanOrEqual(1_000);
    expect(Number(chain.EnergyLimit ?? 0)).toBeGreaterThanOrEqual(10_000);
  }

  // Inactive receivers: activated with the energy order; 600 free bandwidth after activation is enough.
  for (const r of inactive) {
    const i = item(r);
    expect([r, i.status, i.activation.status, i.bandwidth.status, i.charged_amount_sun]).toEqual([r, 'completed', 'done', 'enough', ENERGY + ACTIVATION]);
    expect(i.activation.hash).toMatch(/^[0-9a-f]{64}$/);
    expect((await tronWeb.trx.getAccount(r)).address).toBeDefined();
    expect(Number((await resources(r)).EnergyLimit ?? 0)).toBeGreaterThanOrEqual(10_000);
  }

  // The balance ran out among the plain receivers: those delivered are on chain, the rest got nothing.
  const plainItems = plain.map(item);
  expect(plainItems.filter((i: any) => i.status === 'completed').length).toBeGreaterThan(0);
  for (const i of plainItems) {
    const energy = Number((await resources(i.receiver)).EnergyLimit ?? 0);
    if (i.status === 'completed') {
      expect([i.receiver, i.charged_amount_sun, i.order_ids.length, i.attempts, i.tracking_id]).toEqual([i.receiver, ENERGY, 1, 1, `hundred:${i.receiver}`]);
      expect(energy).toBeGreaterThanOrEqual(10_000);
    } else {
      expect([i.receiver, i.status, i.order_ids, i.charged_amount_sun, i.failure.code, i.attempts, energy]).toEqual([i.receiver, 'insufficient_funds', [], 0, 4001, 1, 0]);
    }
  }

  // Money: what the items were charged left the balance, and batch.completed says the same, once.
  const charged = done.items.reduce((n: number, i: any) => n + i.charged_amount_sun, 0);
  const balance = await orderCall(stack, customer, 'GET', '/v1/balance');
  expect(balance.body.balance_sun).toBe(funding - charged);
  expect(balance.body.balance_sun).toBeLessThan(ENERGY);
  await eventually(async () => (await completedEvents(done.id)).length > 0, 30_000, 'batch.completed');
  const events = await completedEvents(done.id);
  expect(events).toHaveLength(1);
  expect(events[0].data).toMatchObject({
    batch_id: done.id, client_batch_id: 'hundred', status: 'partial', charged_amount_sun: BigInt(charged),
    summary: { total: 100, completed: done.summary.completed, partial: 0, failed: 1, insufficient_funds: done.summary.insufficient_funds, cancelled: 0 },
  });
}, 360_000);

const batchUntil = (customer: Parameters<typeof orderCall>[1], id: string, done: (b: any) => boolean, timeoutMs: number) =>
  batchUntilIn(stack, customer, id, done, timeoutMs);
const completedEvents = (batchId: string) => completedEventsIn(stack, batchId);
