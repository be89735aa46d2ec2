/**
 * Batches benchmark (not a test). Run against the test stack:
 *   make test-stack-up && infra/env/load.sh test -- npx tsx bench/batches.ts
 * One process holds the api, processor, relay, broadcaster, confirmer and batch executor; the devnet runs
 * in its own process (BENCH_BLOCK_MS blocks, default 1000). Prints:
 *   1. POST /v1/batches with BENCH_RECEIVERS items: p50/p99 answer time, sequential (BENCH_POSTS posts), the
 *      executor and the chain roles not started yet, with the CPU per POST of this process and of the world's
 *      PostgreSQL backends and the statements per POST; then the same answer times while the run below executes;
 *   2. BENCH_BATCHES batches of BENCH_RECEIVERS receivers submitted at once: time to the last batch
 *      finished (batch.completed committed), receivers per second delivered, a check that no receiver of any
 *      batch got two orders, and per receiver: CPU ms by process, statements, commands by type.
 * Receivers are activated once up front (faucet), so the figure is delivery, not activation; every batch
 * has its own receivers. Knobs: BENCH_BATCHES (50), BENCH_RECEIVERS (100), BENCH_POSTS (50), BENCH_BLOCK_MS, BENCH_POOL (pool wallets; one per 100 receivers),
 *   BENCH_EXECUTOR_CONCURRENCY (receivers the executor runs at once; unset: BATCH_EXECUTOR_CONCURRENCY, 256), BENCH_SAMPLE_MS (orders by stage every 5,000 ms),
 *   BENCH_WARM_POSTS (POSTs sent and cancelled before the timed ones, 3; 0 times a fresh process's first POSTs).
 */
import { Session } from 'node:inspector/promises';
import { writeFile, mkdir } from 'node:fs/promises';
import type { Server } from 'node:http';
import os from 'node:os';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import type { AddressInfo } from 'node:net';
import { createApp } from '../services/api/app';
import { warmUpApi } from '../services/api/warm-up';
import { commandBusFor } from '../services/platform/command-bus';
import type { Pool } from '../services/platform/db/pool';
import { createRuntime } from '../services/runtime';
import { startRoles } from '../services/roles';
import { startDevnet } from '../test/devnet/start-devnet';
import { newWallet, signedHeaders, signUp } from '../test/support/identity';
import { dropWorld, newWorld } from '../test/support/world';
import { percentile } from './figures';
import { cpuByGroup, cpuSnapshot, DEVNET_GROUP, stackGroup, WORLD_POSTGRES_GROUP, type Classify } from './proc-cpu';
import { statementList, statementRows } from './statements';
import { reportLines } from '../services/platform/slice-timing';

const BATCHES = Number(process.env.BENCH_BATCHES ?? 50);
const RECEIVERS = Number(process.env.BENCH_RECEIVERS ?? 100);
const POSTS = Number(process.env.BENCH_POSTS ?? 50);
const BLOCK_MS = process.env.BENCH_BLOCK_MS ?? '1000';
const POOL = process.env.BENCH_POOL ?? String(Math.max(3, Math.ceil((BATCHES * RECEIVERS) / 100)));

const SAMPLE_MS = Number(process.env.BENCH_SAMPLE_MS ?? 5000);
/** Where to write a CPU profile of this process over the sequential POSTs (none when unset). */
const PROF_DIR = process.env.BENCH_PROF_DIR;

/** The inspector's CPU profiler from now until `stop` (which writes the profile to BENCH_PROF_DIR); nothing when unset. */
async function startProfile(name: string): Promise<{ stop(): Promise<void> }> {
  if (!PROF_DIR) return { stop: async () => undefined };
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return {
    stop: async () => {
      const { profile } = await session.post('Profiler.stop');
      await mkdir(PROF_DIR, { recursive: true });
      const file = `${PROF_DIR}/${name}-${process.pid}-${Date.now()}.cpuprofile`;
      await writeFile(file, JSON.stringify(profile));
      console.log(`  CPU profile: ${file}`);
      session.disconnect();
    },
  };
}

/** Orders of the run by stage: unsigned (allocating, nothing signed), signed (allocating), delegated (broadcast), delivered, failed. */
async function stages(pool: Pool, ids: string[]): Promise<string> {
  const { rows } = await pool.query(
    `SELECT CASE WHEN status = 'allocating' AND allocations = '[]'::jsonb THEN 'unsigned' WHEN status = 'allocating' THEN 'signed'
                 WHEN status IN ('confirmed', 'active', 'expired', 'reclaimed') THEN 'delivered' ELSE status END AS stage, count(*)::int AS n
       FROM orders WHERE batch_id = ANY($1::text[]) GROUP BY 1`, [ids],
  );
  const n = new Map(rows.map((r: { stage: string; n: number }) => [r.stage, r.n]));
  return ['unsigned', 'signed', 'delegated', 'delivered', 'failed', 'refunded'].map((k) => `${k} ${n.get(k) ?? 0}`).join(', ');
}

/**
 * Phases of each POST from timestamps: sent -> command stamped (batches.created_at: HTTP, auth, validation,
 * route), stamped -> the processor's transaction began (command_results.processed_at is its now(): linger,
 * produce, consumer fetch, decode), began -> answered (apply, commit, reply over Redis, HTTP answer).
 */
async function phases(pool: Pool, posts: Array<{ id: string; sentAt: number; answeredAt: number }>): Promise<string> {
  const { rows } = await pool.query(
    `SELECT b.id, extract(epoch FROM b.created_at) * 1000 AS stamped, extract(epoch FROM r.processed_at) * 1000 AS began
       FROM batches b JOIN command_results r ON r.command_type = 'batch.create' AND r.body ->> 'id' = b.id WHERE b.id = ANY($1::text[])`,
    [posts.map((p) => p.id)],
  );
  const at = new Map(rows.map((r: { id: string; stamped: string; began: string }) => [r.id, { stamped: Number(r.stamped), began: Number(r.began) }]));
  const spans = { route: [] as number[], 'to the processor': [] as number[], 'apply and answer': [] as number[] };
  for (const p of posts) {
    const t = at.get(p.id);
    if (!t) continue;
    spans.route.push(t.stamped - p.sentAt);
    spans['to the processor'].push(t.began - t.stamped);
    spans['apply and answer'].push(p.answeredAt - t.began);
  }
  const slowest = posts.filter((p) => at.has(p.id)).sort((a, b) => (b.answeredAt - b.sentAt) - (a.answeredAt - a.sentAt)).slice(0, SLOWEST)
    .map((p) => {
      const t = at.get(p.id) as { stamped: number; began: number };
      return `${p.answeredAt - p.sentAt} = ${(t.stamped - p.sentAt).toFixed(0)} + ${(t.began - t.stamped).toFixed(0)} + ${(p.answeredAt - t.began).toFixed(0)}`;
    });
  return Object.entries(spans).map(([name, v]) => {
    v.sort((a, b) => a - b);
    return `${name} p50 ${percentile(v, 50).toFixed(0)} / p99 ${percentile(v, 99).toFixed(0)} ms`;
  }).join('; ') + `\n  slowest ${SLOWEST} (ms = route + to the processor + apply and answer): ${slowest.join(', ')}`;
}

/** Bursts of the POST step: BENCH_BURST POSTs at once (0: no such step), BENCH_BURST_ROUNDS times. */
const BURST = Number(process.env.BENCH_BURST ?? 0);
const BURST_ROUNDS = Number(process.env.BENCH_BURST_ROUNDS ?? 20);

/** POSTs sent (and cancelled) before the timed ones: 0 times a fresh process's first POSTs as a caller meets them. */
const WARM_POSTS = Number(process.env.BENCH_WARM_POSTS ?? 3);

/** How many of the slowest posts `phases` splits one by one. */
const SLOWEST = Number(process.env.BENCH_SLOWEST ?? 5);

/** Heap in use after a full collection (MB), when node runs with --expose-gc (a leak check); undefined otherwise. */
function liveHeapMb(): number | undefined {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) return undefined;
  gc();
  gc();
  return process.memoryUsage().heapUsed / 2 ** 20;
}

/** GC pauses and event-loop delay of this process (API, processor and relay share it) from now until `stop`. */
function pauses(): { stop(): string } {
  const gc: number[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) gc.push(e.duration);
  });
  observer.observe({ entryTypes: ['gc'] });
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  return {
    stop: () => {
      observer.disconnect();
      loop.disable();
      gc.sort((a, b) => a - b);
      const sum = gc.reduce((a, b) => a + b, 0);
      return `GC ${gc.length} pauses, ${sum.toFixed(0)} ms in all, p99 ${percentile(gc, 99).toFixed(1)} / max ${(gc[gc.length - 1] ?? 0).toFixed(1)} ms; `
        + `event-loop delay p50 ${(loop.percentile(50) / 1e6).toFixed(1)} / p99 ${(loop.percentile(99) / 1e6).toFixed(1)} / max ${(loop.max / 1e6).toFixed(1)} ms`;
    },
  };
}

/**
 * CPU groups (bench/proc-cpu.ts): this process (API, processor, relay, executor, chain roles, the posting
 * client), its devnet, the world's PostgreSQL backends and the shared stack.
 */
function classifier(dbName: string): Classify {
  return (pid, p) => (pid === process.pid ? 'this process' : stackGroup(p, dbName));
}

/** BENCH_STATEMENTS=1: the statements of each step, most called first (pg_stat_statements read before and after). */
const LIST_STATEMENTS = process.env.BENCH_STATEMENTS === '1';

/** Statements this world's database ran so far and their execution time (NaN where pg_stat_statements is not loaded). */
async function statementTotals(pool: Pool): Promise<{ calls: number; ms: number }> {
  const rows = await statementRows(pool);
  if (!rows) return { calls: Number.NaN, ms: Number.NaN };
  let calls = 0;
  let ms = 0;
  for (const r of rows.values()) {
    calls += r.calls;
    ms += r.ms;
  }
  return { calls, ms };
}

/** `what`: CPU ms by process group, statements and their execution ms, per unit, between two readings. */
function perUnit(what: string, units: number, cpu: Map<string, number>, before: { calls: number; ms: number }, after: { calls: number; ms: number }): string {
  // Kafka and the machine as a whole too: on a quiet machine `machine busy` is what the cores bound (2 cores: 2,000 CPU ms a second).
  const groups = ['this process', DEVNET_GROUP, WORLD_POSTGRES_GROUP, 'kafka (shared)', 'machine busy (all cores)'].map((g) => `${g} ${(((cpu.get(g) ?? 0) * 1000) / units).toFixed(2)}`).join(', ');
  return `  per ${what}: CPU ms ${groups}; statements ${((after.calls - before.calls) / units).toFixed(1)}, executing ${((after.ms - before.ms) / units).toFixed(2)} ms`;
}

/** Commands the processor answered so far, by type. */
async function commandCounts(pool: Pool): Promise<Map<string, number>> {
  const { rows } = await pool.query('SELECT command_type AS type, count(*)::int AS n FROM command_results GROUP BY 1');
  return new Map(rows.map((r: { type: string; n: number }) => [r.type, r.n]));
}

/**
 * Records on account-commands so far, all partitions: what the log carried (a command appended twice counts
 * twice; a follow-up the processor applies inline, which keeps its command_results row, not at all).
 */
async function commandRecords(rt: Awaited<ReturnType<typeof createRuntime>>): Promise<bigint> {
  const offsets = await rt.log.endOffsets(rt.codec.topicName('accountCommands'));
  return [...offsets.values()].reduce((sum, o) => sum + o, 0n);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main(): Promise<void> {
  // Enough staked pool wallets for every receiver of the run (three hold about 150 orders of 10,000 energy).
  const devnet = await startDevnet({ DEVNET_BLOCK_MS: BLOCK_MS, DEVNET_POOL: POOL });
  const world = newWorld('benchbatches', {
    LOG_LEVEL: 'error', TRON_FULL_HOST: devnet.url, DEVNET_POOL: POOL, CHAIN_POLL_MS: '100', ...(process.env.BENCH_EXECUTOR_CONCURRENCY ? { BATCH_EXECUTOR_CONCURRENCY: process.env.BENCH_EXECUTOR_CONCURRENCY } : {}), BUDGET_READS_PER_SEC: '1000000', BUDGET_WRITES_PER_SEC: '1000000',
  });
  const rt = await createRuntime(world.cfg);
  console.log(`${os.cpus().length} cores, Node ${process.version}, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  const bus = commandBusFor(rt, { timeoutMs: 30_000 });
  await bus.start();
  // The executor and the chain roles start after the first figure: the POST answer time (and the process's CPU
  // per POST) is the API and the processor's, not a contest with the executor working off the batches just
  // posted, nor the idle chain roles' polling (which filled most of the CPU per POST at load 25+).
  const roles = await startRoles(rt, ['processor', 'relay']);
  await warmUpApi(rt); // as the api role does before it listens (services/roles.ts)
  const api: Server = await new Promise((resolve) => {
    const s = createApp({ rt, bus }).listen(0, '127.0.0.1', () => resolve(s));
  });
  const base = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
  try {
    const customer = await signUp(base);
    const funded = await bus.submit({ type: 'balance.adjust', accountId: customer.accountId, amountSun: 10_000_000_000_000n, memo: 'bench' });
    if (funded.outcome !== 'applied') throw new Error('funding failed');
    // Every batch of the run its own receivers (one receiver ordered by several batches at once is another
    // question); the latency posts share one set, never delivered to.
    const wallets = (count: number) => Promise.all(Array.from({ length: count }, () => newWallet().then((w) => w.address)));
    const probeReceivers = await wallets(RECEIVERS);
    const runReceivers = await Promise.all(Array.from({ length: BATCHES }, () => wallets(RECEIVERS)));
    const all = runReceivers.flat();
    // Retried: with thousands of calls a kept-alive socket the devnet is closing is met now and then ("other
    // side closed"); a repeat only sends the receiver another 1 TRX.
    const faucet = async (to: string, left = 3): Promise<unknown> =>
      fetch(`${devnet.url}/admin/faucet`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ to, trx_sun: 1_000_000 }) })
        .catch((err) => (left > 1 ? sleep(200).then(() => faucet(to, left - 1)) : Promise.reject(err)));
    for (let k = 0; k < all.length; k += 50) await Promise.all(all.slice(k, k + 50).map((to) => faucet(to)));
    await fetch(`${devnet.url}/admin/blocks`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ count: 2 }) });
    let n = 0;
    const post = async (clientBatchId: string, onlyQueue = false, receivers = probeReceivers) => {
      const raw = JSON.stringify({ client_batch_id: clientBatchId, defaults: { resource: 'energy', amount: 10_000, tier: '1h', ...(onlyQueue ? { max_price_sun: 1 } : {}) }, items: receivers.map((receiver) => ({ receiver })) });
      const started = performance.now();
      const sentAt = Date.now();
      const res = await fetch(`${base}/v1/batches`, { method: 'POST', headers: { 'content-type': 'application/json', ...signedHeaders(customer.key, 'POST', '/v1/batches', raw) }, body: raw });
      const body = (await res.json()) as Record<string, unknown>;
      if (res.status !== 202) throw new Error(`POST /v1/batches: ${res.status} ${JSON.stringify(body)}`);
      return { ms: performance.now() - started, id: body.id as string, sentAt, answeredAt: Date.now(), timing: res.headers.get('server-timing') ?? '' };
    };
    // A latency probe's receivers are cancelled once it is answered (not timed): left queued, the executor
    // would work through 100 receivers per probe (3 commands each) ahead of or beside the run.
    const cancel = async (id: string) => {
      const path = `/v1/batches/${id}/cancel`;
      const res = await fetch(`${base}${path}`, { method: 'POST', headers: signedHeaders(customer.key, 'POST', path) });
      const text = await res.text();
      // 3002: the executor had already picked every receiver up (each fails at once on its price cap).
      if (res.status !== 200 && !text.includes('"code":3002')) throw new Error(`POST ${path}: ${res.status} ${text}`);
    };

    // 1. POST latency, the executor not running yet (each batch priced over its cap: once it runs, it fails them at once and charges nothing).
    const sequential: Array<Awaited<ReturnType<typeof post>>> = [];
    // CPU per POST by process (this one holds the API, processor and relay; the posting client's part is small):
    // unlike the answer times, hardly moved by what else the machine runs.
    for (let i = 0; i < WARM_POSTS; i++) await cancel((await post(`warm-${n++}`, true)).id); // compiled paths, warm pools
    await rt.pool.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements').catch(() => undefined);
    const listBefore = LIST_STATEMENTS ? await statementRows(rt.pool) : null;
    const procBefore = cpuSnapshot();
    const statementsBefore = await statementTotals(rt.pool);
    const postProfile = await startProfile('batches-post');
    reportLines('bench'); // the processor's slice timings from here
    const heapBefore = liveHeapMb();
    const postPauses = pauses();
    for (let i = 0; i < POSTS; i++) sequential.push(await post(`lat-${n++}`, true));
    const classify = classifier(new URL(world.cfg.DATABASE_URL).pathname.slice(1));
    const byGroup = cpuByGroup(procBefore, cpuSnapshot(), classify);
    const statementsAfter = await statementTotals(rt.pool);
    await postProfile.stop();
    const firsts = sequential.slice(0, 10).map((p) => p.ms.toFixed(1)).join(', ');
    const times = sequential.map((p) => p.ms).sort((a, b) => a - b);
    console.log(`POST /v1/batches with ${RECEIVERS} items: p50 ${percentile(times, 50).toFixed(1)} ms, p99 ${percentile(times, 99).toFixed(1)} ms (${POSTS} sequential, load ${os.loadavg()[0].toFixed(1)})`);
    console.log(`  first ${Math.min(10, POSTS)} POSTs after ${WARM_POSTS} warm-up POSTs (ms, in order): ${firsts}; the first's Server-Timing: ${sequential[0]?.timing}`);
    console.log(perUnit('POST', POSTS, byGroup, statementsBefore, statementsAfter));
    if (LIST_STATEMENTS) statementList(listBefore, await statementRows(rt.pool), POSTS, 'POST');
    console.log(`  where the time goes: ${await phases(rt.pool, sequential)}`);
    console.log(`  ${postPauses.stop()}`);
    const heapAfter = liveHeapMb();
    if (heapBefore !== undefined && heapAfter !== undefined) {
      console.log(`  heap after a full GC: ${heapBefore.toFixed(1)} MB before the POSTs, ${heapAfter.toFixed(1)} MB after (${(((heapAfter - heapBefore) * 1024) / POSTS).toFixed(1)} KB per POST kept)`);
    }
    process.stdout.write(`  ${reportLines('bench')}`);
    for (const p of sequential) await cancel(p.id);

    // 1b. BENCH_BURST > 0: bursts of that many POSTs at once into an idle processor, BENCH_BURST_ROUNDS (20) times.
    if (BURST > 0) {
      const burst: number[] = [];
      reportLines('bench');
      for (let r = 0; r < BURST_ROUNDS; r++) {
        const posted = await Promise.all(Array.from({ length: BURST }, () => post(`burst-${n++}`, true)));
        burst.push(...posted.map((p) => p.ms));
        for (const p of posted) await cancel(p.id);
        await sleep(50);
      }
      burst.sort((a, b) => a - b);
      console.log(`POST /v1/batches, bursts of ${BURST} at once (${BURST_ROUNDS} rounds): p50 ${percentile(burst, 50).toFixed(1)} ms, p99 ${percentile(burst, 99).toFixed(1)} ms, max ${burst[burst.length - 1].toFixed(1)} ms (load ${os.loadavg()[0].toFixed(1)})`);
      process.stdout.write(`  ${reportLines('bench')}`);
    }

    if (BATCHES === 0) return;
    roles.push(...(await startRoles(rt, ['broadcaster', 'confirmer', 'batch-executor'])));

    // 2. BATCHES x RECEIVERS at once, to every receiver terminal.
    const t0 = Date.now();
    const runProcBefore = cpuSnapshot();
    const runStatementsBefore = await statementTotals(rt.pool);
    const commandsBefore = await commandCounts(rt.pool);
    const recordsBefore = await commandRecords(rt);
    const runListBefore = LIST_STATEMENTS ? await statementRows(rt.pool) : null;
    const runProfile = await startProfile('batches-run');
    const posted = await Promise.all(runReceivers.map((receivers) => post(`run-${n++}`, false, receivers)));
    const ids = posted.map((r) => r.id);
    const atOnce = posted.map((r) => r.ms).sort((a, b) => a - b);
    console.log(`POST /v1/batches, ${BATCHES} at once: p50 ${percentile(atOnce, 50).toFixed(1)} ms, p99 ${percentile(atOnce, 99).toFixed(1)} ms`);
    // While the executor works through them: sequential posts, each cancelled once answered.
    const during: number[] = [];
    const probe = (async () => {
      while (during.length < POSTS) {
        const p = await post(`during-${n++}`, true);
        during.push(p.ms);
        await cancel(p.id);
        await sleep(100);
      }
    })();
    // Where the receivers are, every BENCH_SAMPLE_MS: orders by stage of the delivery path (the executor
    // places them, the broadcaster signs and broadcasts, the confirmer settles), to see which stage queues.
    let sampledAt = 0;
    for (;;) {
      const { rows } = await rt.pool.query('SELECT count(*)::int AS n FROM batches WHERE id = ANY($1::text[]) AND finished_at IS NULL', [ids]);
      if (rows[0].n === 0) break;
      if (Date.now() - sampledAt >= SAMPLE_MS) {
        sampledAt = Date.now();
        console.log(`  +${((sampledAt - t0) / 1000).toFixed(0)} s ${await stages(rt.pool, ids)} (load ${os.loadavg()[0].toFixed(1)})`);
      }
      await sleep(200);
    }
    const seconds = (Date.now() - t0) / 1000;
    const runCpu = cpuByGroup(runProcBefore, cpuSnapshot(), classify);
    const runStatementsAfter = await statementTotals(rt.pool);
    await runProfile.stop();
    await probe;
    during.sort((a, b) => a - b);
    console.log(`POST /v1/batches while ${BATCHES} batches execute: p50 ${percentile(during, 50).toFixed(1)} ms, p99 ${percentile(during, 99).toFixed(1)} ms (${during.length} sequential)`);
    const { rows: delivered } = await rt.pool.query(
      "SELECT count(*)::int AS n FROM orders WHERE batch_id = ANY($1::text[]) AND status IN ('confirmed', 'active', 'expired', 'reclaimed')", [ids],
    );
    const { rows: twice } = await rt.pool.query(
      // Charged twice: a receiver of a batch with more than one energy order that kept its charge (each gets one 10,000 order).
      "SELECT count(*)::int AS n FROM (SELECT batch_id, receiver FROM orders WHERE batch_id = ANY($1::text[]) AND resource = 'energy' AND total_amount_sun > refunded_amount_sun GROUP BY 1, 2 HAVING count(*) > 1) t", [ids],
    );
    const { rows: outcomes } = await rt.pool.query(
      "SELECT status, coalesce(failure->>'slug', '') AS slug, count(*)::int AS n FROM orders WHERE batch_id = ANY($1::text[]) GROUP BY 1, 2 ORDER BY 3 DESC", [ids],
    );
    console.log(`orders of the run by status: ${outcomes.map((o) => `${o.status}${o.slug ? ` (${o.slug})` : ''} ${o.n}`).join(', ')}`);
    const { rows: why } = await rt.pool.query(
      "SELECT left(failure->>'message', 160) AS message, count(*)::int AS n FROM orders WHERE batch_id = ANY($1::text[]) AND failure IS NOT NULL GROUP BY 1 ORDER BY 2 DESC LIMIT 3", [ids],
    );
    for (const w of why) console.log(`  failed ${w.n}: ${w.message}`);
    const { rows: lag } = await rt.pool.query(
      `SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY ms) AS p50, percentile_disc(0.99) WITHIN GROUP (ORDER BY ms) AS p99, max(ms) AS max
         FROM (SELECT extract(epoch FROM delegated_at - created_at) * 1000 AS ms FROM orders WHERE batch_id = ANY($1::text[]) AND delegated_at IS NOT NULL) t`, [ids],
    );
    console.log(`order placed -> confirmed (delegation verified on chain): p50 ${Number(lag[0].p50 ?? 0).toFixed(0)} ms, p99 ${Number(lag[0].p99 ?? 0).toFixed(0)} ms, max ${Number(lag[0].max ?? 0).toFixed(0)} ms`);
    // Per receiver of the run (the probes posted meanwhile are in it too: a POST and a cancel every ~100 ms).
    const receivers = BATCHES * RECEIVERS;
    console.log(perUnit('receiver of the run', receivers, runCpu, runStatementsBefore, runStatementsAfter));
    if (LIST_STATEMENTS) statementList(runListBefore, await statementRows(rt.pool), receivers, 'receiver', 'ms');
    const commands = [...(await commandCounts(rt.pool))].map(([type, n]) => ({ type, n: n - (commandsBefore.get(type) ?? 0) })).filter((c) => c.n > 0).sort((a, b) => b.n - a.n);
    const total = commands.reduce((sum, c) => sum + c.n, 0);
    console.log(`  commands per receiver ${(total / receivers).toFixed(2)}: ${commands.map((c) => `${c.type} ${(c.n / receivers).toFixed(2)}`).join(', ')}`);
    console.log(`  records on account-commands per receiver ${(Number((await commandRecords(rt)) - recordsBefore) / receivers).toFixed(2)}`);
    console.log(`${BATCHES} batches x ${RECEIVERS} receivers at once: last batch finished after ${seconds.toFixed(1)} s; ${delivered[0].n} receivers delivered, ${(delivered[0].n / seconds).toFixed(0)} receivers/s; receivers charged twice: ${twice[0].n} (blocks every ${BLOCK_MS} ms)`);
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
