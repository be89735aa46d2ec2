/**
 * Batch items with `for_transfer` (contract.md section 11): each receiver gets one energy order sized by the
 * processor to its shortfall for that transfer (the amount POST /v1/estimates gives); a receiver whose own
 * energy covers its transfer gets none (item `failed` with 3047, nothing charged); bad items answer 400.
 */
import { newWallet, type Customer } from '../../support/identity';
import { fundedSender } from '../../support/transfers';
import { assertLedgerInvariants } from '../../support/ledger-invariants';
import { fundedCustomer, orderCall, type OrderStack } from '../../support/orders';
import { batchUntil, startBatchStack } from '../../support/batches';

jest.setTimeout(180_000);

let stack: OrderStack;
let stopExecutor: () => Promise<void>;
let customer: Customer;

beforeAll(async () => {
  ({ stack, stopExecutor } = await startBatchStack('ftbatch', 3, {}));
  customer = await fundedCustomer(stack, 100_000_000_000n);
  await stack.devnet.post('/admin/energy-factor', { contract: stack.devnet.accounts.usdt_contract, energy_factor: 34_000 });
}, 120_000);
afterAll(async () => {
  await stopExecutor?.();
  if (stack) await assertLedgerInvariants(stack.rt.pool);
  await stack?.stop();
});

test('each receiver is ordered its shortfall; one with enough gets 3047 and is charged nothing', async () => {
  const [toNew, toHolder, covered] = await Promise.all([fundedSender(stack.devnet), fundedSender(stack.devnet), fundedSender(stack.devnet, 10_000_000_000)]);
  const fresh = (await newWallet()).address;
  const holder = stack.devnet.accounts.customers[0].address;
  const transfers = [
    { receiver: toNew.address, for_transfer: { to: fresh, amount: '2000000' } },
    { receiver: toHolder.address, for_transfer: { to: holder, amount: 3, token: 'USDT' } },
    { receiver: covered.address, for_transfer: { to: holder, amount: 4 } },
  ];
  const estimated = await orderCall(stack, customer, 'POST', '/v1/estimates', { items: transfers.map((t) => ({ from: t.receiver, ...t.for_transfer })) });
  expect(estimated.body.data.map((e: any) => e.energy_to_rent)).toEqual([130_460, 64_460, 0]);

  const posted = await orderCall(stack, customer, 'POST', '/v1/batches', { client_batch_id: 'ft-batch-1', defaults: { resource: 'energy', tier: '5m', bandwidth: false }, items: transfers });
  expect(posted.status).toBe(202);
  const done = await batchUntil(stack, customer, posted.body.id, (b) => b.status !== 'queued' && b.status !== 'processing');
  const byReceiver = new Map(done.items.map((i: any) => [i.receiver, i]));
  const orderOf = async (receiver: string) => {
    const ids = (byReceiver.get(receiver) as any).order_ids as string[];
    expect(ids).toHaveLength(1);
    return (await orderCall(stack, customer, 'GET', `/v1/orders/${ids[0]}`)).body;
  };
  expect(byReceiver.get(toNew.address)).toMatchObject({ status: 'completed' });
  expect(byReceiver.get(toHolder.address)).toMatchObject({ status: 'completed' });
  expect(byReceiver.get(covered.address)).toMatchObject({ status: 'failed', order_ids: [], charged_amount_sun: 0, failure: { code: 3047, slug: 'nothing_to_rent' } });
  expect(await orderOf(toNew.address)).toMatchObject({ amount: 130_460, source: 'batch', pay_amount_sun: 130_460 * 40 });
  expect(await orderOf(toHolder.address)).toMatchObject({ amount: 64_460, source: 'batch', pay_amount_sun: 64_460 * 40 });
  expect(done.status).toBe('partial');
});

test('bad for_transfer items: 400 naming the field', async () => {
  const receiver = stack.devnet.accounts.customers[1].address;
  const to = stack.devnet.accounts.customers[2].address;
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ receiver, resource: 'energy', tier: '5m', amount: 65_000, for_transfer: { to, amount: 1 } }, 'items[0].amount'],
    [{ receiver, resource: 'bandwidth', tier: '5m', for_transfer: { to, amount: 1 } }, 'items[0].resource'],
    [{ receiver, resource: 'energy', tier: '5m', for_transfer: { to, amount: 'x' } }, 'items[0].for_transfer.amount'],
    [{ receiver, resource: 'energy', tier: '5m', for_transfer: { to, amount: 1, token: 'DOGE' } }, 'items[0].for_transfer.token'],
  ];
  for (const [item, field] of cases) {
    const reply = await orderCall(stack, customer, 'POST', '/v1/batches', { items: [item] }, { 'idempotency-key': `bad-${field.replace(/[^a-z]/g, '')}-key` });
    expect({ field, status: reply.status, got: reply.body.error?.details?.field }).toEqual({ field, status: 400, got: field });
  }
});
