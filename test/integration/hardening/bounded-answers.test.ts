/**
 * Bounded answers (issue 31, item 4) on the real stack: the orders CSV export writes at most
 * ORDERS_CSV_MAX_ROWS rows and names the cursor for the rest; the batch list shows at most 1,000 items per
 * page and reads the table a bounded number of times whatever its status filter.
 */
import { batchRequestHash, mergeItems } from '../../../services/domain/batches/rules';
import { LIST_ITEMS_MAX } from '../../../services/api/routes/batches';
import { call, sessionHeaders, signedCall, signIn, signUp, startIdentityStack, type Customer, type IdentityStack } from '../../support/identity';

let stack: IdentityStack;
let owner: Customer;
beforeAll(async () => {
  stack = await startIdentityStack('bounded', { ORDERS_CSV_MAX_ROWS: '5' });
  owner = await signUp(stack.base);
  const funded = await stack.bus.submit({ type: 'balance.adjust', accountId: owner.accountId, amountSun: 1_000_000_000n, memo: 'bounded answers' });
  expect(funded.outcome).toBe('applied');
});
afterAll(async () => {
  await stack?.stop();
});

const order = (i: number) => ({
  type: 'order.create' as const, accountId: owner.accountId, clientOrderId: `csv-${i}`, idempotencyKey: null, requestHash: `h${i}`, resource: 'energy' as const,
  amount: 65_000, tier: '5m', durationSeconds: 300, receiver: 'TQ4iYRqJ3mdBzUZq1a4pg8x7TmxGqPNK4u', receiverActive: true, activate: null, maxPriceSun: null,
  quoteId: null, quoteExpiresAt: null, priceSunPerUnit: 40n, paySun: 2_600_000n, activateSun: 0n, source: 'api' as const, memo: `=memo ${i}`, supplier: 'pool' as const,
});

test('the CSV export stops at its row cap and X-Next-Cursor continues exactly where it stopped', async () => {
  for (let i = 0; i < 8; i++) expect((await stack.bus.submit(order(i) as never)).outcome).toBe('applied');
  const first = await signedCall(stack.base, owner.key, 'GET', '/v1/orders?format=csv');
  expect(first.status).toBe(200);
  expect(first.headers.get('x-export-row-limit')).toBe('5');
  const firstRows = first.text.trim().split('\r\n').slice(1);
  expect(firstRows).toHaveLength(5);
  const next = first.headers.get('x-next-cursor');
  expect(next).toBeTruthy();
  const rest = await signedCall(stack.base, owner.key, 'GET', `/v1/orders?format=csv&cursor=${encodeURIComponent(next!)}`);
  const restRows = rest.text.trim().split('\r\n').slice(1);
  expect(restRows).toHaveLength(3);
  expect(rest.headers.get('x-next-cursor')).toBeNull();
  const ids = (rows: string[]) => rows.map((r) => r.split(',')[0]);
  const all = await signedCall(stack.base, owner.key, 'GET', '/v1/orders?limit=200');
  expect([...ids(firstRows), ...ids(restRows)]).toEqual(all.body.data.map((o: { id: string }) => o.id));
});

async function createBatches(count: number, receivers: number): Promise<void> {
  for (let b = 0; b < count; b++) {
    const items = mergeItems({ resource: 'energy', amount: 65_000, tier: '1h', maxPriceSun: 1n }, Array.from({ length: receivers }, (_, k) => ({ receiver: `T${String(b * 1_000 + k).padStart(33, '0')}` })));
    const result = await stack.bus.submit({ type: 'batch.create', accountId: owner.accountId, batchKey: `bounded-${b}`, clientBatchId: `bounded-${b}`, requestHash: batchRequestHash(`bounded-${b}`, items), items } as never);
    expect(result.outcome).toBe('applied');
  }
}

test('a batch page holds at most 1,000 items; next_cursor reaches every batch', async () => {
  await createBatches(12, 100);
  const seen: string[] = [];
  let path = '/v1/batches?limit=200';
  for (let pages = 0; pages < 5; pages++) {
    const page = await signedCall(stack.base, owner.key, 'GET', path);
    expect(page.status).toBe(200);
    const items = page.body.data.reduce((n: number, b: { items: unknown[] }) => n + b.items.length, 0);
    expect(items).toBeLessThanOrEqual(LIST_ITEMS_MAX);
    seen.push(...page.body.data.map((b: { id: string }) => b.id));
    if (!page.body.next_cursor) break;
    path = `/v1/batches?limit=200&cursor=${encodeURIComponent(page.body.next_cursor)}`;
  }
  expect(new Set(seen).size).toBe(12);
});

test('a status filter matching nothing answers a short page with a cursor instead of reading every batch', async () => {
  const first = await signedCall(stack.base, owner.key, 'GET', '/v1/batches?limit=1&status=completed');
  expect(first.status).toBe(200);
  expect(first.body.data).toEqual([]);
  expect(first.body.next_cursor).toBeTruthy();
  let cursor: string | null = first.body.next_cursor;
  let requests = 1;
  while (cursor && requests < 10) {
    const page = await signedCall(stack.base, owner.key, 'GET', `/v1/batches?limit=1&status=completed&cursor=${encodeURIComponent(cursor)}`);
    expect(page.body.data).toEqual([]);
    cursor = page.body.next_cursor;
    requests++;
  }
  expect(cursor).toBeNull();
  expect(requests).toBe(2);
});

test('held USDT deposits on the ledger\'s first page are at most `limit`, newest first (dust cannot grow the page)', async () => {
  const now = Date.now();
  for (let i = 0; i < 30; i++) {
    await stack.rt.pool.query(
      `INSERT INTO deposits (deposit_id, account_id, asset, address, sender, txid, log_index, block_number, block_timestamp, amount, confirmations_required, status, amount_sun, seen_at)
       VALUES ($1, $2, 'USDT', 'TAddr', 'TSender', $3, 0, $4, $5, 1, 19, 'held_below_min', 0, $5)`,
      [`dust${i}`, owner.accountId, `tx${i}`, 1_000 + i, new Date(now - (30 - i) * 1_000)],
    );
  }
  const session = await signIn(stack.base, owner.wallet);
  const page = await call(stack.base, 'GET', '/v1/ledger?limit=10', { headers: sessionHeaders(session, false) });
  expect(page.status).toBe(200);
  const held = page.body.data.filter((e: { deposit: { status: string } | null }) => e.deposit?.status === 'held_below_min');
  expect(held.map((e: { id: string }) => e.id)).toEqual(Array.from({ length: 10 }, (_, k) => `dep_dust${29 - k}`));
  const second = await call(stack.base, 'GET', `/v1/ledger?limit=10&cursor=${encodeURIComponent(page.body.next_cursor ?? '')}`, { headers: sessionHeaders(session, false) });
  if (page.body.next_cursor) expect(second.body.data.every((e: { deposit: { status: string } | null }) => e.deposit?.status !== 'held_below_min')).toBe(true);
});
