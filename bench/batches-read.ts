/**
 * The batch executor's read of its work per pass (not a test): BENCH_OPEN (50) open batches of 100 receivers
 * in a world's database, then BENCH_PASSES (100) passes of each way, taking turns pass by pass, one batch row
 * changed before each pair (as a start or done wave does):
 *   before: every open batch with work read in full and parsed, and the complete candidates chosen by
 *           jsonb_path_exists over every open batch (the two queries of services/batches/store.ts before
 *           the row-version cache);
 *   after:  readOpenBatches (ids and row versions; changed rows read) and executorWork.
 * Prints per pass: this process's CPU ms, the wall ms (which holds PostgreSQL's part), and the load average.
 *   infra/env/load.sh test -- npx tsx bench/batches-read.ts
 */
import os from 'node:os';
import { batchFromRow } from '../services/processor/batch-store';
import { executorWork, OpenBatchesCache, readOpenBatches } from '../services/batches/store';
import { dropWorld, newWorld, openRuntime } from '../test/support/world';
import { percentile } from './figures';

const OPEN = Number(process.env.BENCH_OPEN ?? 50);
const PASSES = Number(process.env.BENCH_PASSES ?? 100);

const item = (k: number, progress: string) => ({
  receiver: `T${String(k).padStart(33, 'x')}`, resource: 'energy', amount: 10_000, tier: '1h', activate: null, bandwidth: null, bandwidthAmount: null,
  maxPriceSun: null, clientOrderIdPrefix: 'bench', progress, orderIds: progress === 'done' ? [`ord_${k}`] : [], failure: null, receiverActive: true,
  startedAt: progress === 'queued' ? null : 1_763_900_000_000, finishedAt: progress === 'done' ? 1_763_900_001_000 : null,
  bandwidthPlan: { kind: 'enough', free: 600 }, attempts: progress === 'done' ? 1 : 0,
});

const SELECT = `SELECT id, account_id, batch_key, client_batch_id, request_hash, items::text AS items_text, created_at, finished_at, final_status, charged_sun`;
const HAS_WORK = `jsonb_path_exists(items, '$[*] ? (@.progress == "queued" || @.progress == "started")')`;
const SETTLED = `NOT EXISTS (SELECT 1 FROM orders o WHERE o.batch_id = batches.id AND o.status IN ('created', 'paid', 'allocating', 'delegated'))`;

async function main(): Promise<void> {
  const world = newWorld('benchbatchread', { LOG_LEVEL: 'error' });
  const rt = await openRuntime(world);
  try {
    for (let b = 0; b < OPEN; b++) {
      // A batch under way: a third done, a third started, a third queued.
      const items = Array.from({ length: 100 }, (_, k) => item(b * 100 + k, k < 33 ? 'done' : k < 66 ? 'started' : 'queued'));
      await rt.pool.query(
        `INSERT INTO batches (id, account_id, batch_key, client_batch_id, request_hash, items, created_at) VALUES ($1, 'acc_bench', $1, NULL, 'h', $2::jsonb, $3)`,
        [`bat_${b}`, JSON.stringify(items), new Date(1_763_900_000_000 + b)],
      );
    }
    const before = async () => {
      const start = await rt.pool.query(`${SELECT} FROM batches WHERE finished_at IS NULL AND ${HAS_WORK} ORDER BY created_at, id LIMIT $1`, [200]);
      start.rows.map(batchFromRow);
      const complete = await rt.pool.query(`${SELECT} FROM batches WHERE finished_at IS NULL AND NOT ${HAS_WORK} AND ${SETTLED} ORDER BY created_at, id LIMIT $1`, [200]);
      complete.rows.map(batchFromRow);
    };
    const cache = new OpenBatchesCache();
    const after = async () => {
      await executorWork(rt.pool, await readOpenBatches(rt.pool, cache, 500));
    };
    const timed = async (f: () => Promise<void>, cpu: number[], wall: number[]) => {
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      await f();
      wall.push(performance.now() - t0);
      const c = process.cpuUsage(c0);
      cpu.push((c.user + c.system) / 1000);
    };
    const figures = { before: { cpu: [] as number[], wall: [] as number[] }, after: { cpu: [] as number[], wall: [] as number[] } };
    await before();
    await after();
    for (let p = 0; p < PASSES; p++) {
      // One batch's row rewritten (a wave), as between two executor passes under way.
      await rt.pool.query(`UPDATE batches SET items = items WHERE id = $1`, [`bat_${p % OPEN}`]);
      const order: Array<'before' | 'after'> = p % 2 === 0 ? ['before', 'after'] : ['after', 'before'];
      for (const way of order) await timed(way === 'before' ? before : after, figures[way].cpu, figures[way].wall);
    }
    for (const [way, f] of Object.entries(figures)) {
      const cpu = [...f.cpu].sort((a, b) => a - b);
      const wall = [...f.wall].sort((a, b) => a - b);
      console.log(`${way}: ${OPEN} open batches of 100, per pass CPU p50 ${percentile(cpu, 50).toFixed(2)} ms, wall p50 ${percentile(wall, 50).toFixed(2)} / p99 ${percentile(wall, 99).toFixed(2)} ms (${PASSES} passes)`);
    }
    console.log(`load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  } finally {
    await rt.pool.query("DELETE FROM batches WHERE id LIKE 'bat\\_%'");
    await dropWorld(world, rt).catch((err) => console.error(`teardown: ${(err as Error).message}`));
    await rt.close();
  }
}

main().then(() => process.exit(0), (err) => {
  console.error(err);
  process.exit(1);
});
