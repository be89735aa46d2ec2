/**
 * The executor's read of the open batches (services/batches/store.ts readOpenBatches, executorWork): a row
 * is fetched and parsed again only when it changed (its xmin), a change is seen at the next read, a finished
 * batch leaves the list and the cache, and the work is split into batches to start and batches to complete
 * (every receiver done and no order of the batch awaiting delivery). The rows are written straight into a
 * world's database: only the read is under test.
 */
import type { Runtime } from '../../../services/runtime';
import { executorWork, OpenBatchesCache, readOpenBatches } from '../../../services/batches/store';
import { dropWorld, newWorld, openRuntime, type World } from '../../support/world';

let world: World;
let rt: Runtime;

beforeAll(async () => {
  world = newWorld('openbatches');
  rt = await openRuntime(world);
}, 60_000);
afterAll(async () => {
  // Rows written past the log: removed, so the world's replay check compares what the log decided.
  await rt?.pool.query("DELETE FROM orders WHERE id LIKE 'ord\\_%'; DELETE FROM batches WHERE id LIKE 'bat\\_%'");
  if (rt) await dropWorld(world, rt);
  await rt?.close();
});

const item = (receiver: string, progress: string, orderIds: string[] = []) => ({
  receiver, resource: 'energy', amount: 10_000, tier: '1h', activate: null, bandwidth: null, bandwidthAmount: null, maxPriceSun: null,
  clientOrderIdPrefix: null, progress, orderIds, failure: null, receiverActive: null, startedAt: null, finishedAt: null,
});

async function insertBatch(id: string, createdAt: number, items: unknown[]): Promise<void> {
  await rt.pool.query(
    `INSERT INTO batches (id, account_id, batch_key, client_batch_id, request_hash, items, created_at) VALUES ($1, 'acc_1', $1, NULL, 'h', $2::jsonb, $3)`,
    [id, JSON.stringify(items), new Date(createdAt)],
  );
}

/** An order row of batch `batchId` (the account it names is not created: foreign keys off for this one insert). */
async function insertOrder(id: string, batchId: string, receiver: string, status: string): Promise<void> {
  const client = await rt.pool.connect();
  try {
    await client.query('SET session_replication_role = replica');
    await client.query(
      `INSERT INTO orders (id, account_id, request_hash, resource, amount, tier, receiver, source, status, confirm_status, pay_amount_sun,
         activate_amount_sun, total_amount_sun, refunded_amount_sun, supplier, allocations, undelegations, created_at, updated_at, batch_id)
       VALUES ($1, 'acc_1', 'h', 'energy', 10000, '1h', $2, 'batch', $3, 'unconfirmed', 600000, 0, 600000, 0, 'pool', '[]', '[]', now(), now(), $4)`,
      [id, receiver, status, batchId],
    );
  } finally {
    await client.query('RESET session_replication_role');
    client.release();
  }
}

test('rows read once until they change; finished batches leave; start and complete split as the executor needs', async () => {
  const t = Date.parse('2026-11-23T10:00:00Z');
  await insertBatch('bat_a', t, [item('ra1', 'queued'), item('ra2', 'done')]);
  await insertBatch('bat_b', t + 1, [item('rb1', 'done', ['ord_b1']), item('rb2', 'cancelled')]);
  await insertBatch('bat_c', t + 2, [item('rc1', 'done', ['ord_c1'])]);
  // bat_c's order still awaits delivery: not complete yet.
  await insertOrder('ord_c1', 'bat_c', 'rc1', 'allocating');

  const cache = new OpenBatchesCache();
  const first = await readOpenBatches(rt.pool, cache, 100);
  expect(first.map((b) => b.id)).toEqual(['bat_a', 'bat_b', 'bat_c']);
  const work = await executorWork(rt.pool, first);
  expect(work.start.map((b) => b.id)).toEqual(['bat_a']);
  expect(work.complete.map((b) => b.id)).toEqual(['bat_b']);

  // Nothing changed: the very same objects (not fetched and parsed again).
  const second = await readOpenBatches(rt.pool, cache, 100);
  second.forEach((b, k) => expect(b).toBe(first[k]));

  // A changed row is read again at the next pass, the others are kept.
  await rt.pool.query(`UPDATE batches SET items = $2::jsonb WHERE id = $1`, ['bat_a', JSON.stringify([item('ra1', 'started'), item('ra2', 'done')])]);
  const third = await readOpenBatches(rt.pool, cache, 100);
  expect(third[0]).not.toBe(first[0]);
  expect(third[0].items[0].progress).toBe('started');
  expect(third[1]).toBe(first[1]);

  // bat_c's order settled: it becomes complete; bat_b finished: it leaves the list and the cache.
  await rt.pool.query(`UPDATE orders SET status = 'active' WHERE id = 'ord_c1'`);
  await rt.pool.query(`UPDATE batches SET finished_at = now(), final_status = 'completed' WHERE id = 'bat_b'`);
  const fourth = await readOpenBatches(rt.pool, cache, 100);
  expect(fourth.map((b) => b.id)).toEqual(['bat_a', 'bat_c']);
  expect([...cache.rows.keys()].sort()).toEqual(['bat_a', 'bat_c']);
  const later = await executorWork(rt.pool, fourth);
  expect(later.start.map((b) => b.id)).toEqual(['bat_a']);
  expect(later.complete.map((b) => b.id)).toEqual(['bat_c']);

  // The limit keeps the oldest.
  expect((await readOpenBatches(rt.pool, new OpenBatchesCache(), 1)).map((b) => b.id)).toEqual(['bat_a']);
});
