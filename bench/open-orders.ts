/**
 * Open orders benchmark (issue 34, "cost does not grow with what is open"; not a test). Run against the
 * test stack:
 *   infra/env/load.sh test -- npx tsx bench/open-orders.ts
 *
 * The service as `make up` deploys it (`services/main.ts --roles all`, BENCH_API_WORKERS API processes),
 * against a devnet of its own (300 ms blocks). Three windows, CPU by process group in each (bench/proc-cpu.ts):
 *   1. delivery: BENCH_OPEN (20,000) `5m` energy orders placed with BENCH_CONCURRENCY (128) in flight, until
 *      every one is delegated on chain and confirmed: CPU per delivered order;
 *   2. idle: BENCH_IDLE_SECONDS (30) with every order active and nothing asked: the service's CPU as a share
 *      of one core (the goal: under 5 %);
 *   3. expiry: from the first order's `expires_at` until every order is reclaimed (undelegated on chain):
 *      CPU per expired order, and its ratio to the delivery window's (the goal: at most 1).
 * `5m` orders expire five real minutes after they were placed, so the placement must take less than
 * 5 minutes minus the idle window (printed; the bench says so when it did not).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { commandBusFor } from '../services/platform/command-bus';
import { awaitingDelivery } from '../services/domain/orders/rules';
import { createRuntime } from '../services/runtime';
import { startDevnet } from '../test/devnet/start-devnet';
import { signedHeaders, signUp } from '../test/support/identity';
import { dropWorld, newWorld } from '../test/support/world';
import { freePort, stopChild, waitReady } from './processes';
import { statementList, statementRows } from './statements';
import { startWindowProfile, type WindowProfiler } from './inspector-profile';
import { httpSender, type Send } from './load';
import { cpuByGroup, cpuLines, cpuSnapshot, DEVNET_GROUP, stackGroup, WORLD_POSTGRES_GROUP, type Classify, type CpuSnapshot } from './proc-cpu';

const OPEN = Number(process.env.BENCH_OPEN ?? 20_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 128);
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 30);
/** Seconds waited after the last confirmation before the idle window opens (what the passes right after a wave cost is then outside it). */
const IDLE_SETTLE_SECONDS = Number(process.env.BENCH_IDLE_SETTLE_SECONDS ?? 0);
/** `0`: stop after the idle window (no expiry wave; for a quicker look at the idle cost alone). */
const EXPIRY = process.env.BENCH_EXPIRY !== '0';
const WORKERS = Number(process.env.BENCH_API_WORKERS ?? 2);
/** The service's clock runs this many times real time (CLOCK_SCALE): a `5m` order expires 300 / scale real seconds after it was placed. */
const CLOCK_SCALE = Number(process.env.BENCH_CLOCK_SCALE ?? 1);
const TIER_SECONDS = 300 / CLOCK_SCALE;
const CLOCK_ORIGIN_MS = Date.now();
/** The service's time now (its clock), and the real time of a service time. */
const serviceNow = () => CLOCK_ORIGIN_MS + (Date.now() - CLOCK_ORIGIN_MS) * CLOCK_SCALE;
const realTimeOf = (serviceMs: number) => CLOCK_ORIGIN_MS + (serviceMs - CLOCK_ORIGIN_MS) / CLOCK_SCALE;
/** A request's signed timestamp on the service's clock (its window is checked there), one per request. */
let lastStamp = 0;
const requestStamp = () => (lastStamp = Math.max(Math.floor(serviceNow()), lastStamp + 1));
const ROOT = path.resolve(__dirname, '..');
/** Where the idle window's CPU profile of the primary process goes (`idle-primary.cpuprofile`; bench/profile-summary.ts reads it); none when unset. */
const PROF_DIR = process.env.BENCH_PROF_DIR;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));



/** `count` requests, `concurrency` in flight, each tried up to 5 times on 429/503: the 201s, and the last failure of the rest by kind. */
async function placeAll(send: Send, count: number, concurrency: number): Promise<{ ok: number; failed: Map<string, number> }> {
  let next = 0;
  let ok = 0;
  const failed = new Map<string, number>();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < count) {
      const n = next++;
      for (let attempt = 0; attempt < 5; attempt++) {
        const o = await send(n);
        if (o.ok) {
          ok++;
          break;
        }
        const retry = (o.status === 429 || o.status === 503) && attempt < 4;
        if (!retry) {
          const kind = o.failure ?? String(o.status);
          failed.set(kind, (failed.get(kind) ?? 0) + 1);
          break;
        }
        await sleep(500);
      }
    }
  }));
  return { ok, failed };
}

async function countWhere(rt: Awaited<ReturnType<typeof createRuntime>>, sql: string, params: unknown[] = []): Promise<number> {
  return (await rt.pool.query(`SELECT count(*)::int AS n FROM orders WHERE ${sql}`, params)).rows[0].n;
}

async function until(probe: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await probe()) return true;
    await sleep(500);
  }
  return false;
}

function report(title: string, before: CpuSnapshot, after: CpuSnapshot, classify: Classify, orders: number): Map<string, number> {
  const cpu = cpuByGroup(before, after, classify);
  const seconds = (after.at - before.at) / 1000;
  console.log(`${title}: ${seconds.toFixed(1)} s, ${orders} orders, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  console.log('  CPU by process (per 1,000 orders = ms per order; "of a core" = share of one core over the window):');
  for (const l of cpuLines(cpu, orders, orders, seconds)) console.log(l);
  return cpu;
}

/** Where the expiring orders are: due and not signed, undelegation signed and not landed, expired (reclaimed or not). */
async function expiryStages(rt: Awaited<ReturnType<typeof createRuntime>>): Promise<string> {
  const { rows } = await rt.pool.query(
    `SELECT count(*) FILTER (WHERE status IN ('confirmed', 'active') AND undelegations = '[]'::jsonb AND expires_at <= $1)::int AS due,
            count(*) FILTER (WHERE status IN ('confirmed', 'active') AND undelegations <> '[]'::jsonb)::int AS signed,
            count(*) FILTER (WHERE status = 'expired' AND reclaimed_at IS NULL)::int AS expired_unreclaimed,
            count(*) FILTER (WHERE status = 'expired' AND reclaimed_at IS NOT NULL)::int AS done
       FROM orders`, [new Date(serviceNow())]);
  const r = rows[0];
  return `due, not signed ${r.due}; signed, not landed ${r.signed}; expired, not reclaimed ${r.expired_unreclaimed}; expired and reclaimed ${r.done}`;
}

/** The service's chain node calls so far by path (Prometheus text of its metrics listener; every process of its tree). */
async function chainCallCounts(metricsPort: number): Promise<Map<string, number>> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const counts = new Map<string, number>();
  for (const m of text.matchAll(/^chain_call_duration_seconds_count\{([^}]*)\} (\S+)$/gm)) {
    const method = /method="([^"]*)"/.exec(m[1])?.[1] ?? '?';
    counts.set(method, (counts.get(method) ?? 0) + Number(m[2]));
  }
  return counts;
}

/** Rows read and written so far per table of the world's database (statistics lag up to a second or so: fine for a 30 s window). */
async function tableReads(rt: Awaited<ReturnType<typeof createRuntime>>): Promise<Map<string, { seq: number; idx: number; scans: number; writes: number }>> {
  await rt.pool.query('SELECT pg_stat_clear_snapshot()');
  const { rows } = await rt.pool.query(
    `SELECT relname, coalesce(seq_tup_read, 0)::float8 AS seq, coalesce(idx_tup_fetch, 0)::float8 AS idx, (coalesce(seq_scan, 0) + coalesce(idx_scan, 0))::float8 AS scans,
            (n_tup_ins + n_tup_upd + n_tup_del)::float8 AS writes FROM pg_stat_user_tables`);
  return new Map(rows.map((r: { relname: string; seq: number; idx: number; scans: number; writes: number }) => [r.relname, r]));
}

/** Records on each topic so far (the sum of its partitions' end offsets). */
async function recordsOn(rt: Awaited<ReturnType<typeof createRuntime>>, topics: string[]): Promise<Map<string, bigint>> {
  const out = new Map<string, bigint>();
  for (const t of topics) out.set(t, [...(await rt.log.endOffsets(t)).values()].reduce((a, b) => a + b, 0n));
  return out;
}

/** CPU ms so far of each thread of `pid`, summed by thread name (the main thread is named after the process). */
function threadCpu(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(name, (out.get(name) ?? 0) + (Number(f[11]) + Number(f[12])) * 10);
    } catch { /* the thread ended */ }
  }
  return out;
}

const serviceGroups = (cpu: Map<string, number>) => [...cpu.entries()].filter(([g]) => g.startsWith('service')).reduce((a, [, s]) => a + s, 0);

async function main(): Promise<void> {
  console.log(`machine: ${os.cpus().length} cores, Node ${process.version}; ${OPEN} orders of 5m, ${WORKERS} API processes, --roles all`);
  const devnet = await startDevnet({ DEVNET_BLOCK_MS: '300' });
  const world = newWorld('benchopen', {
    LOG_LEVEL: 'error', TRON_FULL_HOST: devnet.url, BUDGET_READS_PER_SEC: '1000000', BUDGET_WRITES_PER_SEC: '1000000',
    DATABASE_POOL_MAX: '8', COMMAND_TIMEOUT_MS: String(10_000 * CLOCK_SCALE), ADMISSION_TARGET_MS: '1500',
    CLOCK_SCALE: String(CLOCK_SCALE), CLOCK_ORIGIN_MS: String(CLOCK_ORIGIN_MS), ORDER_WAIT_WINDOW_MS: String(60_000 * CLOCK_SCALE),
    // The consumers' idle fetch wait as `make up` runs it (the config's default), not the test worlds' own
    // setting; BENCH_FETCH_MAX_WAIT_MS to compare another.
    KAFKA_FETCH_MAX_WAIT_MS: process.env.BENCH_FETCH_MAX_WAIT_MS as string,
  });
  const rt = await createRuntime(world.cfg);
  await rt.pool.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements').catch(() => undefined);
  const port = await freePort();
  const metricsPort = await freePort();
  const inspectPort = PROF_DIR ? await freePort() : 0;
  const inspect = PROF_DIR ? [`--inspect=127.0.0.1:${inspectPort}`] : [];
  const service = spawn(process.execPath, [...inspect, '--import', 'tsx', path.join(ROOT, 'services/main.ts'), '--roles', 'all'], {
    cwd: ROOT, env: { ...world.env, METRICS_PORT: String(metricsPort), API_PORT: String(port), API_HOST: '127.0.0.1', API_WORKERS: String(WORKERS) }, stdio: ['ignore', 'inherit', 'inherit'],
  });
  const dbName = decodeURIComponent(new URL(world.cfg.DATABASE_URL).pathname.slice(1));
  const classify: Classify = (pid, p) => {
    if (pid === process.pid) return 'load generator (this process)';
    if (pid === service.pid) return 'service: primary (every role but the API)';
    if (p.ppid === service.pid && p.args.includes('services/main.ts')) return 'service: API workers';
    return stackGroup(p, dbName);
  };
  try {
    const base = `http://127.0.0.1:${port}`;
    await waitReady(`${base}/readyz`, service);
    const bus = commandBusFor(rt, { timeoutMs: 30_000 });
    await bus.start();
    const customer = await signUp(base);
    const funded = await bus.submit({ type: 'balance.adjust', accountId: customer.accountId, amountSun: 10_000_000_000_000n, memo: 'bench' });
    await bus.stop();
    if (funded.outcome !== 'applied') throw new Error('funding failed');
    const receivers = devnet.accounts.customers.map((c) => c.address);
    const send = httpSender(base, (n) => {
      const raw = JSON.stringify({ resource: 'energy', amount: 10_000, tier: '5m', receiver: receivers[n % receivers.length], client_order_id: `open-${n}` });
      return { method: 'POST', path: '/v1/orders', headers: { 'content-type': 'application/json', ...signedHeaders(customer.key, 'POST', '/v1/orders', raw, requestStamp()) }, body: raw };
    }, 201, 10_000);

    const deliveryStart = cpuSnapshot();
    const placedAt = Date.now();
    const { ok: placed, failed } = await placeAll(send, OPEN, CONCURRENCY);
    if (failed.size > 0) console.log(`not placed: ${[...failed].map(([k, n]) => `${n} ${k}`).join(', ')}`);
    if (placed === 0) throw new Error('no order placed');
    const placingSeconds = (Date.now() - placedAt) / 1000;
    const delivered = await until(async () => (await countWhere(rt, 'status = ANY($1)', [awaitingDelivery])) === 0, 600_000);
    const deliveryEnd = cpuSnapshot();
    console.log(`placed ${placed} of ${OPEN} in ${placingSeconds.toFixed(1)} s (${(placed / placingSeconds).toFixed(0)}/s); ${delivered ? 'every one delegated and confirmed' : 'NOT all delivered after 600 s'} ${((Date.now() - placedAt) / 1000).toFixed(1)} s after the first`);
    const delivery = report('delivery window (placing to every order confirmed on chain)', deliveryStart, deliveryEnd, classify, placed);

    await sleep(IDLE_SETTLE_SECONDS * 1000);
    const { rows } = await rt.pool.query('SELECT min(expires_at) AS first FROM orders');
    const firstExpiry = realTimeOf(new Date(rows[0].first).getTime());
    const idleRoom = (firstExpiry - Date.now()) / 1000 - 2;
    if (idleRoom < IDLE_SECONDS) console.log(`idle window shortened to ${Math.max(0, idleRoom).toFixed(0)} s: the first order expires then (placing took ${placingSeconds.toFixed(0)} s of the tier's ${TIER_SECONDS} s)`);
    const idleSeconds = Math.max(0, Math.min(IDLE_SECONDS, idleRoom));
    const active = await countWhere(rt, "status IN ('confirmed', 'active')");
    const profiler: WindowProfiler | null = PROF_DIR ? await startWindowProfile(inspectPort) : null;
    const topics = Object.values(rt.codec.topics).map((t) => t.topic);
    const [calls0, statements0, records0, threads0] = [await chainCallCounts(metricsPort), await statementRows(rt.pool), await recordsOn(rt, topics), threadCpu(service.pid!)];
    const tables0 = await tableReads(rt);
    const idleStart = cpuSnapshot();
    await sleep(idleSeconds * 1000);
    const idleEnd = cpuSnapshot();
    const [calls1, statements1, records1, threads1] = [await chainCallCounts(metricsPort), await statementRows(rt.pool), await recordsOn(rt, topics), threadCpu(service.pid!)];
    const tables1 = await tableReads(rt);
    if (profiler && PROF_DIR) {
      fs.mkdirSync(PROF_DIR, { recursive: true });
      await profiler.stop(path.join(PROF_DIR, 'idle-primary.cpuprofile'));
      console.log(`  idle profile of the primary: ${path.join(PROF_DIR, 'idle-primary.cpuprofile')} (npx tsx bench/profile-summary.ts it)`);
    }
    const idle = report(`idle window (${active} orders active, no requests)`, idleStart, idleEnd, classify, active);
    console.log(`  service (API workers and primary): ${((serviceGroups(idle) / idleSeconds) * 100).toFixed(1)} % of one core with ${active} open orders (goal: under 5 %)`);
    console.log('  chain node calls per second in the idle window, by path (the service\'s chain_call_duration_seconds):');
    for (const [method, n] of [...calls1].map(([m, n]) => [m, n - (calls0.get(m) ?? 0)] as const).filter(([, n]) => n > 0).sort((a, b) => b[1] - a[1])) {
      console.log(`    ${(n / idleSeconds).toFixed(2)}/s ${method}`);
    }
    const appended = [...records1].map(([t, n]) => [t, n - (records0.get(t) ?? 0n)] as const).filter(([, n]) => n > 0n);
    console.log(`  records appended to the log in the idle window: ${appended.length === 0 ? 'none' : appended.map(([t, n]) => `${n} on ${t}`).join(', ')}`);
    console.log(`  the primary's threads, share of one core: ${[...threads1].map(([name, ms]) => [name, ms - (threads0.get(name) ?? 0)] as const).filter(([, ms]) => ms > 0).sort((a, b) => b[1] - a[1]).map(([name, ms]) => `${name} ${((ms / 10 / idleSeconds)).toFixed(1)} %`).join(', ')}`);
    console.log('  rows PostgreSQL read per second in the idle window, by table (pg_stat_user_tables: sequential scans, index fetches):');
    for (const [table, r] of [...tables1].map(([t, r]) => [t, { seq: r.seq - (tables0.get(t)?.seq ?? 0), scans: r.scans - (tables0.get(t)?.scans ?? 0), idx: r.idx - (tables0.get(t)?.idx ?? 0), writes: r.writes - (tables0.get(t)?.writes ?? 0) }] as const)
      .filter(([, r]) => r.seq + r.idx + r.writes + r.scans > 0).sort((a, b) => (b[1].seq + b[1].idx) - (a[1].seq + a[1].idx)).slice(0, 15)) {
      console.log(`    ${table}: ${(r.seq / idleSeconds).toFixed(0)} rows/s by sequential scan, ${(r.idx / idleSeconds).toFixed(0)} rows/s by index, ${(r.scans / idleSeconds).toFixed(1)} scans/s, ${(r.writes / idleSeconds).toFixed(1)} rows written/s`);
    }
    console.log('  statements of this world in the idle window, most execution time first (pg_stat_statements):');
    statementList(statements0, statements1, idleSeconds, 's', 'ms');

    if (!EXPIRY) return;
    await sleep(Math.max(0, firstExpiry - Date.now()));
    const expiryStart = cpuSnapshot();
    const stages = setInterval(() => void expiryStages(rt).then((line) => console.log(`  expiry stages: ${line}`), () => undefined), 10_000);
    const reclaimed = await until(async () => (await countWhere(rt, "status IN ('allocating', 'delegated', 'confirmed', 'active') OR (reclaimed_at IS NULL AND status = 'expired')")) === 0, 900_000);
    const expiryEnd = cpuSnapshot();
    clearInterval(stages);
    const expired = await countWhere(rt, "status = 'expired'");
    console.log(`${reclaimed ? 'every order expired and reclaimed' : 'NOT every order reclaimed after 900 s'}; by status: ${(await rt.pool.query('SELECT status, count(*)::int AS n FROM orders GROUP BY status ORDER BY status')).rows.map((r) => `${r.status} ${r.n}`).join(', ')}`);
    const expiry = report('expiry window (first expires_at to every order reclaimed on chain)', expiryStart, expiryEnd, classify, expired);
    // Two measures: the whole machine's (honest on a quiet machine only), and this run's own processes' (the
    // service, its world's PostgreSQL connections, its devnet: steady beside other runs; Kafka is shared).
    const machine = (cpu: Map<string, number>) => cpu.get('machine busy (all cores)') ?? 0;
    const own = (cpu: Map<string, number>) => serviceGroups(cpu) + (cpu.get(WORLD_POSTGRES_GROUP) ?? 0) + (cpu.get(DEVNET_GROUP) ?? 0);
    for (const [name, of] of [['machine', machine], ["this run's processes", own]] as const) {
      const d = (of(delivery) * 1000) / Math.max(1, placed);
      const e = (of(expiry) * 1000) / Math.max(1, expired);
      console.log(`CPU ms per order (${name}): delivery ${d.toFixed(2)}, expiry ${e.toFixed(2)} (ratio expiry/delivery ${(e / d).toFixed(2)}; goal at most 1)`);
    }
  } finally {
    await stopChild(service);
    rt.pool.on('error', () => undefined);
    await rt.log.deleteTopics(Object.values(rt.codec.topics).map((t) => t.topic)).catch(() => undefined);
    await dropWorld(world).catch(() => undefined);
    await Promise.allSettled([rt.close(), devnet.stop()]);
  }
}

main().then(() => process.exit(0), (err) => {
  console.error(err);
  process.exit(1);
});
