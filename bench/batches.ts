/**
 * Batches benchmark (not a test). Run against the test stack:
 *   make test-stack-up && infra/env/load.sh test -- npx tsx bench/batches.ts
 * One process holds the api, processor, relay, broadcaster, confirmer and batch executor; the devnet runs
 * in its own process (BENCH_BLOCK_MS blocks, default 1000). Prints:
 *   1. POST /v1/batches with BENCH_RECEIVERS items: p50/p99 answer time, sequential (BENCH_POSTS posts);
 *   2. BENCH_BATCHES batches of BENCH_RECEIVERS receivers submitted at once: time to the last batch
 *      finished (batch.completed committed), receivers per second delivered, and a check that no
 *      receiver of any batch got two orders.
 * Receivers are activated once up front (faucet), so the figure is delivery, not activation.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../services/api/app';
import { commandBusFor } from '../services/platform/command-bus';
import { createRuntime } from '../services/platform/runtime';
import { startRoles } from '../services/roles';
import { startDevnet } from '../test/devnet/start-devnet';
import { newWallet, signedHeaders, signUp } from '../test/support/identity';
import { dropWorld, newWorld } from '../test/support/world';

const BATCHES = Number(process.env.BENCH_BATCHES ?? 50);
const RECEIVERS = Number(process.env.BENCH_RECEIVERS ?? 100);
const POSTS = Number(process.env.BENCH_POSTS ?? 50);
const BLOCK_MS = process.env.BENCH_BLOCK_MS ?? '1000';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

async function main(): Promise<void> {
  const devnet = await startDevnet({ DEVNET_BLOCK_MS: BLOCK_MS });
  const world = newWorld('benchbatches', {
    LOG_LEVEL: 'error', TRON_FULL_HOST: devnet.url, CHAIN_POLL_MS: '100', BUDGET_READS_PER_SEC: '1000000', BUDGET_WRITES_PER_SEC: '1000000',
  });
  const rt = await createRuntime(world.cfg);
  const bus = commandBusFor(rt, { timeoutMs: 30_000 });
  await bus.start();
  const roles = await startRoles(rt, ['processor', 'relay', 'broadcaster', 'confirmer', 'batch-executor']);
  const api: Server = await new Promise((resolve) => {
    const s = createApp({ rt, bus }).listen(0, '127.0.0.1', () => resolve(s));
  });
  const base = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
  try {
    const customer = await signUp(base);
    const funded = await bus.submit({ type: 'balance.adjust', accountId: customer.accountId, amountSun: 10_000_000_000_000n, memo: 'bench' });
    if (funded.outcome !== 'applied') throw new Error('funding failed');
    const receivers = await Promise.all(Array.from({ length: RECEIVERS }, () => newWallet().then((w) => w.address)));
    for (const to of receivers) {
      await fetch(`${devnet.url}/admin/faucet`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ to, trx_sun: 1_000_000 }) });
    }
    await fetch(`${devnet.url}/admin/blocks`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ count: 2 }) });
    let n = 0;
    const post = async (clientBatchId: string, onlyQueue = false) => {
      const raw = JSON.stringify({ client_batch_id: clientBatchId, defaults: { resource: 'energy', amount: 10_000, tier: '1h', ...(onlyQueue ? { max_price_sun: 1 } : {}) }, items: receivers.map((receiver) => ({ receiver })) });
      const started = performance.now();
      const res = await fetch(`${base}/v1/batches`, { method: 'POST', headers: { 'content-type': 'application/json', ...signedHeaders(customer.key, 'POST', '/v1/batches', raw, Date.now()) }, body: raw });
      const body = (await res.json()) as Record<string, unknown>;
      if (res.status !== 202) throw new Error(`POST /v1/batches: ${res.status} ${JSON.stringify(body)}`);
      return { ms: performance.now() - started, id: body.id as string };
    };

    // 1. POST latency (each batch priced over its cap, so the executor fails them at once and charges nothing).
    const times: number[] = [];
    for (let i = 0; i < POSTS; i++) times.push((await post(`lat-${n++}`, true)).ms);
    times.sort((a, b) => a - b);
    console.log(`POST /v1/batches with ${RECEIVERS} items: p50 ${percentile(times, 50).toFixed(1)} ms, p99 ${percentile(times, 99).toFixed(1)} ms (${POSTS} sequential)`);

    // 2. BATCHES x RECEIVERS at once, to every receiver terminal.
    const t0 = Date.now();
    const ids = (await Promise.all(Array.from({ length: BATCHES }, () => post(`run-${n++}`)))).map((r) => r.id);
    for (;;) {
      const { rows } = await rt.pool.query('SELECT count(*)::int AS n FROM batches WHERE id = ANY($1::text[]) AND finished_at IS NULL', [ids]);
      if (rows[0].n === 0) break;
      await sleep(200);
    }
    const seconds = (Date.now() - t0) / 1000;
    const { rows: delivered } = await rt.pool.query(
      "SELECT count(*)::int AS n FROM orders WHERE batch_id = ANY($1::text[]) AND status IN ('confirmed', 'active', 'expired', 'reclaimed')", [ids],
    );
    const { rows: twice } = await rt.pool.query(
      'SELECT count(*)::int AS n FROM (SELECT batch_id, receiver FROM orders WHERE batch_id = ANY($1::text[]) GROUP BY 1, 2 HAVING count(*) > 1) t', [ids],
    );
    console.log(`${BATCHES} batches x ${RECEIVERS} receivers at once: last batch finished after ${seconds.toFixed(1)} s; ${delivered[0].n} receivers delivered, ${(delivered[0].n / seconds).toFixed(0)} receivers/s; receivers ordered twice: ${twice[0].n} (blocks every ${BLOCK_MS} ms)`);
  } finally {
    await new Promise((r) => api.close(r));
    await Promise.allSettled(roles.map((r) => r.stop()));
    await bus.stop();
    rt.pool.on('error', () => undefined);
    await dropWorld(world, rt).catch((err) => console.error(`teardown: ${(err as Error).message}`));
    await Promise.allSettled([rt.close(), devnet.stop()]);
  }
}

main().then(() => process.exit(0), (err) => {
  console.error(err);
  process.exit(1);
});
