/**
 * Orders benchmark (not a test). Run against the test stack (bench/README.md):
 *   make bench-orders        (= infra/env/load.sh test -- npx tsx bench/orders.ts, on the pinned Node)
 *
 * The service runs as production does, in its own processes: `services/main.ts --roles
 * api,processor,relay` with BENCH_API_WORKERS API processes on one port (node cluster) and
 * `--roles broadcaster,confirmer` in another (BENCH_SPLIT_CHAIN=0: all in one primary), against a devnet of its own (300 ms blocks). The ceiling, in the same run, is a bare
 * endpoint with the same number of processes doing only the signature check and ONE PostgreSQL insert
 * per request. This process only generates load (keep-alive HTTP, every request with a timeout, every
 * failure counted; bench/load.ts).
 *
 * The anchor, also in the same run (BENCH_MONOLITH=0: not run): a naive monolith (bench/naive-monolith.ts:
 * node:http, one PostgreSQL transaction per order, then TronWeb builds, signs and broadcasts the delegation
 * before answering) with as many processes, against the same devnet.
 *
 * Prints, for signed POST /v1/orders (energy, 1h, to active receivers), service, ceiling and monolith:
 *   1. sustained: ok answers/s with BENCH_CONCURRENCY requests in flight for BENCH_SECONDS (closed loop);
 *   2. p50/p99 and ok answers/s at each offered rate of BENCH_RATES (open loop), timeouts and errors;
 *   3. last, CPU seconds by process per 1,000 requests at BENCH_CPU_RATE offered (bench/proc-cpu.ts);
 *   with BENCH_IDLE_ORDERS=N, first: N orders one at a time on the idle service, the p50/p90 of POST -> answer
 *   and how many answered `active` with their hash (the synchronous delivery's own latency);
 * the ratios service/ceiling, the core count and the Node version.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { commandBusFor } from '../services/platform/command-bus';
import { awaitingDelivery } from '../services/domain/orders/rules';
import type { Pool } from '../services/platform/db/pool';
import { lowerPriority } from '../services/platform/priority';
import { createRuntime } from '../services/runtime';
import { startDevnet } from '../test/devnet/start-devnet';
import { signedHeaders, signUp } from '../test/support/identity';
import { dropWorld, newWorld } from '../test/support/world';
import { monolithAccount, monolithTables } from './naive-monolith';
import { freePort, stopChild, waitReady } from './processes';
import { httpSender, line, offered, sustained, type RunFigures, type Send } from './load';
import { cpuByGroup, cpuLines, cpuSnapshot, stackGroup, type Classify } from './proc-cpu';
import { statementList, statementRows } from './statements';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 128);
const RATES = (process.env.BENCH_RATES ?? '500,2000').split(',').map(Number);
const WORKERS = Number(process.env.BENCH_API_WORKERS ?? 2);
const TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_MS ?? 10_000);
/**
 * Sockets the load generator opens to one service at most. A request past them waits in this process for a
 * socket, where the service cannot see it, let alone shed it: "offered 2,000/s" then measures this process's
 * queue. Open loop means every request reaches the server when it is due (as from a fleet of bots), so the
 * default is well past what 2,000/s for 2 s can hold; 512 was the default before (bench/README.md, "Stop 41").
 */
const MAX_SOCKETS = Number(process.env.BENCH_MAX_SOCKETS ?? 8_192);
/** Offered rate of the CPU-accounting step (0: no such step). */
const CPU_RATE = Number(process.env.BENCH_CPU_RATE ?? 400);
/** 0: no sustained (closed-loop) step: only the offered rates (and the CPU step), less chain work to drain after. */
const SUSTAINED = process.env.BENCH_SUSTAINED !== '0';
/** 0: skip the sustained and offered-rate steps (only the CPU step runs): CPU per order of a change, quickly. */
const HEADLINE = process.env.BENCH_HEADLINE !== '0';
/** Orders of the chain-drain step (0: no such step): placed at DRAIN_RATE, then every one's chain work awaited. */
const CHAIN_DRAIN = Number(process.env.BENCH_CHAIN_DRAIN ?? 0);
const DRAIN_RATE = Number(process.env.BENCH_DRAIN_RATE ?? 200);
/** The service's code: this checkout, or another one (BENCH_SERVICE_ROOT=/work/main: A/B with this bench). */
const ROOT = path.resolve(process.env.BENCH_SERVICE_ROOT ?? path.resolve(__dirname, '..'));
/**
 * Nice value of this run's devnet: it stands in for the remote chain (not on the service's machine in
 * production), so like the chain roles (BACKGROUND_NICE) it yields the CPU to the answer path. 0: unchanged.
 */
const DEVNET_NICE = Number(process.env.BENCH_DEVNET_NICE ?? 10);
/** BACKGROUND_NICE of the service's chain-roles process (the test profile sets 0 for the tests; production's default is 10). */
const BACKGROUND_NICE = process.env.BENCH_BACKGROUND_NICE ?? '10';
/** Orders of the idle step (0: no such step): placed one at a time on the idle service, POST -> `active` with its hash. */
const IDLE_ORDERS = Number(process.env.BENCH_IDLE_ORDERS ?? 0);
/** Longest wait (s) for the chain work of the service's steps to finish after them (every order delivered). */
const DRAIN_SECONDS = Number(process.env.BENCH_DRAIN_SECONDS ?? 300);

/** 0: no naive-monolith steps (bench/naive-monolith.ts). */
const MONOLITH = process.env.BENCH_MONOLITH !== '0';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));


function spawnNode(script: string, args: string[], env: Record<string, string>): ChildProcess {
  // BENCH_PROF_DIR: CPU profiles of the service's and the ceiling's processes (node --cpu-prof).
  const prof = process.env.BENCH_PROF_DIR ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_PROF_DIR] : [];
  const child = spawn(process.execPath, [...prof, '--import', 'tsx', path.join(ROOT, script), ...args], { cwd: ROOT, env, stdio: ['ignore', 'inherit', 'inherit'] });
  return child;
}



function orderSender(base: string, key: { id: string; secret: string }, receivers: string[], prefix: string): Send {
  return httpSender(base, (n) => {
    const raw = JSON.stringify({ resource: 'energy', amount: 10_000, tier: '1h', receiver: receivers[n % receivers.length], client_order_id: `${prefix}-${n}` });
    return { method: 'POST', path: '/v1/orders', headers: { 'content-type': 'application/json', ...signedHeaders(key, 'POST', '/v1/orders', raw) }, body: raw };
  }, 201, TIMEOUT_MS, MAX_SOCKETS);
}

/**
 * One order at a time on the idle service (after 5 unmeasured): how long POST /v1/orders takes to answer,
 * and how many answers are `active` with their hash (the rest `allocating`: the broadcast was late).
 */
async function idleStep(base: string, key: { id: string; secret: string }, receivers: string[]): Promise<void> {
  const ms: number[] = [];
  const stages = new Map<string, number[]>();
  let active = 0;
  for (let i = 0; i < IDLE_ORDERS + 5; i++) {
    const raw = JSON.stringify({ resource: 'energy', amount: 10_000, tier: '1h', receiver: receivers[i % receivers.length], client_order_id: `idle-${i}` });
    const started = performance.now();
    const res = await fetch(`${base}/v1/orders`, { method: 'POST', headers: { 'content-type': 'application/json', ...signedHeaders(key, 'POST', '/v1/orders', raw) }, body: raw });
    const body = (await res.json()) as { status?: string; delegate_hash?: string | null };
    const took = performance.now() - started;
    if (i >= 5) {
      ms.push(took);
      for (const part of (res.headers.get('server-timing') ?? '').split(',')) {
        const m = /^\s*([\w-]+);dur=([\d.]+)/.exec(part);
        if (m) stages.set(m[1], [...(stages.get(m[1]) ?? []), Number(m[2])]);
      }
      if (res.status === 201 && body.status === 'active' && body.delegate_hash) active += 1;
    }
    await sleep(300);
  }
  ms.sort((a, b) => a - b);
  const at = (q: number) => ms[Math.min(ms.length - 1, Math.floor(q * ms.length))].toFixed(1);
  const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)].toFixed(1);
  const parts = [...stages].map(([name, v]) => `${name} ${median(v)}`).join(', ');
  console.log(`service idle, one order at a time (${IDLE_ORDERS}, load average ${os.loadavg()[0].toFixed(1)}): POST -> answer p50 ${at(0.5)} ms, p90 ${at(0.9)} ms; ${active} active with their hash; stage medians (Server-Timing, ms): ${parts}`);
}

/**
 * Around a step of the service: the processor's slice timings (printed by the primary on SIGUSR2,
 * services/platform/slice-timing.ts) start over before it and are printed after it.
 */
async function withSliceTimings<T>(primary: ChildProcess | undefined, step: () => Promise<T>): Promise<T> {
  primary?.kill('SIGUSR2');
  const out = await step();
  primary?.kill('SIGUSR2');
  await sleep(200); // the primary's line before the next of ours
  return out;
}

async function measure(name: string, send: Send, start: number, primary?: ChildProcess): Promise<{ sustained?: RunFigures; rates: RunFigures[]; next: number }> {
  let n = start;
  let s: Awaited<ReturnType<typeof sustained>> | undefined;
  if (SUSTAINED) {
    s = await withSliceTimings(primary, () => sustained(send, n, CONCURRENCY, SECONDS));
    n = s.next;
    console.log(line(`${name} sustained (${CONCURRENCY} in flight, ${SECONDS} s)`, s));
  }
  const rates: RunFigures[] = [];
  for (const rate of RATES) {
    await sleep(2_000); // let the backlog of the previous step drain
    const r = await withSliceTimings(primary, () => offered(send, n, rate, SECONDS));
    n = r.next;
    rates.push(r);
    console.log(line(`${name} offered ${rate}/s`, r));
  }
  return { sustained: s, rates, next: n };
}

/**
 * The naive monolith's tables, a funded account and its processes (bench/naive-monolith.ts), signing with
 * the devnet's pool accounts at the devnet's own stake per unit of energy.
 */
async function startMonolith(
  pool: Pool, devnet: Awaited<ReturnType<typeof startDevnet>>, env: Record<string, string>, port: number, workers: number, secret: string,
): Promise<ChildProcess> {
  for (const ddl of monolithTables) await pool.query(ddl);
  await pool.query('INSERT INTO bench_monolith_accounts (id, balance_sun) VALUES ($1, $2)', [monolithAccount, (10n ** 15n).toString()]);
  const resources = await devnet.post<{ TotalEnergyLimit: number; TotalEnergyWeight: number }>('/wallet/getaccountresource', { address: devnet.accounts.pool[0].address, visible: true });
  // Stake (SUN) per unit of energy, rounded up: TRX weight per energy × 1e6.
  const sunPerUnit = Math.ceil((resources.TotalEnergyWeight * 1_000_000) / resources.TotalEnergyLimit);
  return spawnNode('bench/naive-monolith.ts', [], {
    ...env, MONOLITH_PORT: String(port), MONOLITH_WORKERS: String(workers), MONOLITH_SECRET: secret,
    MONOLITH_POOL_KEYS: devnet.accounts.pool.map((w) => w.private_key).join(','), MONOLITH_SUN_PER_UNIT: String(sunPerUnit),
  });
}

/** Groups for the CPU accounting (bench/proc-cpu.ts): the run's own processes and the shared stack's. */
function classifier(roots: { service: number; chain?: number; ceiling: number; monolith?: number; dbName: string }): Classify {
  return (pid, p) => {
    if (pid === process.pid) return 'load generator (this process)';
    if (pid === roots.service) return 'primary (cluster primary, processor, relay' + (roots.chain ? ')' : ', broadcaster, confirmer)');
    if (p.ppid === roots.service && p.args.includes('services/main.ts')) return `api worker ${pid}`;
    if (pid === roots.chain) return 'chain roles (broadcaster, confirmer)';
    if (pid === roots.ceiling || p.ppid === roots.ceiling) return 'ceiling processes';
    if (roots.monolith !== undefined && (pid === roots.monolith || p.ppid === roots.monolith)) return 'monolith processes';
    return stackGroup(p, roots.dbName);
  };
}

/** The service's CPU per order at a fixed offered rate: the step's figures and CPU seconds by process. */
async function cpuStep(name: string, send: Send, start: number, classify: Classify, primary?: ChildProcess): Promise<number> {
  const before = cpuSnapshot();
  const r = await withSliceTimings(primary, () => offered(send, start, CPU_RATE, SECONDS));
  const after = cpuSnapshot();
  const load = os.loadavg().map((l) => l.toFixed(1)).join(' ');
  console.log(line(`${name} offered ${CPU_RATE}/s (CPU accounting, load average ${load})`, r));
  console.log(`  CPU by process over ${((after.at - before.at) / 1000).toFixed(1)} s (${r.sent} sent, ${r.ok} ok answers):`);
  for (const l of cpuLines(cpuByGroup(before, after, classify), r.sent, r.ok)) console.log(l);
  return r.next;
}

/**
 * The chain work of the steps so far (delegations signed, broadcast, confirmed after the answers, by roles at
 * lower priority) must finish once the load stops, and nothing be lost: waits until no order awaits delivery
 * and prints how long that took and the orders by status (every one `active`, none `failed`, is the pass).
 */
async function drainChainWork(pool: Pool, label: string): Promise<void> {
  const started = Date.now();
  const awaiting = async () => Number((await pool.query('SELECT count(*) AS n FROM orders WHERE status = ANY($1)', [awaitingDelivery])).rows[0].n);
  let left = await awaiting();
  while (left > 0 && Date.now() - started < DRAIN_SECONDS * 1000) {
    await sleep(500);
    left = await awaiting();
  }
  const byStatus = (await pool.query('SELECT status, count(*) AS n FROM orders GROUP BY status ORDER BY status')).rows
    .map((r: { status: string; n: string }) => `${r.status} ${r.n}`).join(', ');
  // Why orders failed, and how long after their creation (the wait window ends what the chain roles did not reach).
  const failed = (await pool.query(`SELECT failure->>'slug' AS slug, count(*) AS n, round(avg(extract(epoch FROM updated_at - created_at))) AS s
    FROM orders WHERE status = 'failed' GROUP BY 1 ORDER BY 1`)).rows.map((r: { slug: string; n: string; s: string }) => `${r.slug} ${r.n} (${r.s} s after creation on average)`).join(', ');
  console.log(`chain work after ${label}: ${left === 0 ? 'done' : `NOT done (${left} orders still awaiting delivery)`} ${((Date.now() - started) / 1000).toFixed(1)} s after the last answer; orders by status: ${byStatus}${failed ? `; failed: ${failed}` : ''}`);
}

/** Orders of the world still awaiting delivery (their chain work not done). */
async function ordersAwaitingDelivery(rt: Awaited<ReturnType<typeof createRuntime>>): Promise<number> {
  const { rows } = await rt.pool.query('SELECT count(*)::int AS n FROM orders WHERE status = ANY($1)', [awaitingDelivery]);
  return rows[0].n;
}

async function untilDrained(rt: Awaited<ReturnType<typeof createRuntime>>, timeoutMs: number): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if ((await ordersAwaitingDelivery(rt)) === 0) return true;
    await sleep(250);
  }
  return false;
}

/**
 * The chain side's CPU per settled order: once nothing awaits delivery, CHAIN_DRAIN orders at DRAIN_RATE
 * offered, then until every order's chain work is done (signed, broadcast, in a solidified block, settled),
 * CPU seconds by process over the whole window, per settled order. The headline steps flatter a tree that
 * defers chain work past their window; this one charges each tree all of it.
 */
async function drainStep(rt: Awaited<ReturnType<typeof createRuntime>>, send: Send, start: number, classify: Classify): Promise<void> {
  if (!(await untilDrained(rt, 600_000))) console.log('chain drain: earlier orders still awaiting delivery after 600 s; measuring anyway');
  if (process.env.BENCH_STATEMENTS === '1') await rt.pool.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements').catch(() => undefined);
  const statementsBefore = await statementRows(rt.pool);
  const before = cpuSnapshot();
  const r = await offered(send, start, DRAIN_RATE, CHAIN_DRAIN / DRAIN_RATE);
  const answered = performance.now();
  const drained = await untilDrained(rt, 600_000);
  const after = cpuSnapshot();
  const statementsAfter = await statementRows(rt.pool);
  const { rows } = await rt.pool.query("SELECT status, count(*)::int AS n FROM orders WHERE client_order_id LIKE 'drain-%' GROUP BY status ORDER BY status");
  const settled = rows.filter((x: { status: string }) => x.status !== 'allocating' && x.status !== 'delegated').reduce((a: number, x: { n: number }) => a + x.n, 0);
  const load = os.loadavg().map((l) => l.toFixed(1)).join(' ');
  console.log(line(`chain drain: ${CHAIN_DRAIN} orders offered at ${DRAIN_RATE}/s (load average ${load})`, r));
  console.log(`  ${drained ? 'drained' : 'NOT drained (600 s)'} ${((after.at - answered) / 1000).toFixed(1)} s after the last answer; by status: ${rows.map((x: { status: string; n: number }) => `${x.status} ${x.n}`).join(', ')}`);
  console.log(`  CPU by process over ${((after.at - before.at) / 1000).toFixed(1)} s (${r.sent} sent, ${settled} settled; per 1,000 settled = ms per settled order):`);
  for (const l of cpuLines(cpuByGroup(before, after, classify), r.sent, settled)) console.log(l);
  // BENCH_STATEMENTS=1: the world's statements over the window, most execution time first.
  if (process.env.BENCH_STATEMENTS === '1' && statementsAfter) {
    console.log('  statements per settled order (pg_stat_statements), most execution time first:');
    statementList(statementsBefore, statementsAfter, settled, 'settled order', 'ms');
  }
}

/**
 * Commands per order over the whole run: records on account-commands (the log the processor consumes) and
 * command results (one per command applied, a follow-up applied in its parent's slice included), per order.
 */
async function commandsPerOrder(rt: Awaited<ReturnType<typeof createRuntime>>): Promise<void> {
  const ends = await rt.log.endOffsets(rt.codec.topicName('accountCommands'));
  const onLog = [...ends.values()].reduce((a, b) => a + Number(b), 0);
  const { rows } = await rt.pool.query(
    "SELECT (SELECT count(*)::int FROM orders) AS orders, (SELECT count(*)::int FROM command_results WHERE command_type LIKE 'order.%') AS results",
  );
  const { orders, results } = rows[0] as { orders: number; results: number };
  console.log(`commands per order: ${(onLog / orders).toFixed(2)} records on account-commands (${onLog} for ${orders} orders, account and funding commands included), ${(results / orders).toFixed(2)} order command results`);
}

async function main(): Promise<void> {
  console.log(`machine: ${os.cpus().length} cores (${os.cpus()[0]?.model ?? '?'}), Node ${process.version}, ${WORKERS} API processes, service from ${ROOT}`);
  // The service sheds as production does: the test profile's admission targets are set out of reach for the
  // tests' bursts (infra/env/test.env); BENCH_ADMISSION=test keeps them.
  if (process.env.BENCH_ADMISSION !== 'test') for (const k of ['ADMISSION_TARGET_MS', 'ADMISSION_LATENCY_MS']) delete process.env[k];
  // BENCH_ADMISSION_LATENCY_MS: the service's ADMISSION_LATENCY_MS for this run (A/B of the latency the limit steers to).
  if (process.env.BENCH_ADMISSION_LATENCY_MS) process.env.ADMISSION_LATENCY_MS = process.env.BENCH_ADMISSION_LATENCY_MS;
  const devnet = await startDevnet({ DEVNET_BLOCK_MS: '300' });
  if (devnet.pid !== undefined) lowerPriority(devnet.pid, DEVNET_NICE);
  const world = newWorld('benchorders', {
    LOG_LEVEL: 'error', TRON_FULL_HOST: devnet.url, CHAIN_POLL_MS: '100', BUDGET_READS_PER_SEC: '1000000', BUDGET_WRITES_PER_SEC: '1000000',
    COMMAND_TIMEOUT_MS: String(TIMEOUT_MS), KAFKA_SESSION_TIMEOUT_MS: '30000', BACKGROUND_NICE,
    // The test stack's PostgreSQL is shared (max_connections 100): 8 per process keeps the run near 50.
    DATABASE_POOL_MAX: '8', COMMAND_MAX_WAITING: process.env.BENCH_MAX_WAITING ?? '400',
  });
  const rt = await createRuntime(world.cfg);
  const [apiPort, ceilingPort] = await Promise.all([freePort(), freePort()]);
  const children: ChildProcess[] = [];
  try {
    await rt.pool.query('CREATE TABLE bench_ceiling (id text PRIMARY KEY, body jsonb NOT NULL, created_at timestamptz NOT NULL DEFAULT now())');
    // The chain roles sign and broadcast every order's delegations (CPU-heavy TronWeb work); with
    // BENCH_SPLIT_CHAIN=1 (default) they run in a process of their own, as production scales roles.
    // BENCH_SHAPE=make-up: `make up`'s deployment instead: every role in the primary (`--roles all`).
    const makeUpShape = process.env.BENCH_SHAPE === 'make-up';
    const split = !makeUpShape && process.env.BENCH_SPLIT_CHAIN !== '0';
    const roles = makeUpShape ? 'all' : split ? 'api,processor,relay' : 'api,processor,relay,broadcaster,confirmer';
    console.log(`service shape: ${makeUpShape ? 'make up (--roles all in one primary)' : split ? 'split (chain roles in a process of their own)' : 'chain roles in the primary'}, ${WORKERS} API workers`);
    const service = spawnNode('services/main.ts', ['--roles', roles], {
      ...world.env, API_PORT: String(apiPort), API_HOST: '127.0.0.1', API_WORKERS: String(WORKERS),
    });
    children.push(service);
    const chain = split ? spawnNode('services/main.ts', ['--roles', 'broadcaster,confirmer'], { ...world.env, API_WORKERS: '1' }) : undefined;
    if (chain) children.push(chain);
    const ceilingSecret = 'bench-ceiling-secret';
    const ceiling = spawnNode('bench/ceiling-server.ts', [], {
      ...world.env, CEILING_PORT: String(ceilingPort), CEILING_WORKERS: String(WORKERS), CEILING_SECRET: ceilingSecret,
    });
    children.push(ceiling);
    const monolithPort = await freePort();
    const monolith = MONOLITH ? await startMonolith(rt.pool, devnet, world.env, monolithPort, WORKERS, ceilingSecret) : undefined;
    if (monolith) children.push(monolith);
    const apiBase = `http://127.0.0.1:${apiPort}`;
    const ceilingBase = `http://127.0.0.1:${ceilingPort}`;
    const monolithBase = `http://127.0.0.1:${monolithPort}`;
    await Promise.all([
      waitReady(`${apiBase}/readyz`, service), waitReady(`${ceilingBase}/ready`, ceiling),
      monolith ? waitReady(`${monolithBase}/ready`, monolith) : Promise.resolve(),
    ]);

    const bus = commandBusFor(rt, { timeoutMs: 30_000 });
    await bus.start();
    const customer = await signUp(apiBase);
    const funded = await bus.submit({ type: 'balance.adjust', accountId: customer.accountId, amountSun: 10_000_000_000_000n, memo: 'bench' });
    await bus.stop();
    if (funded.outcome !== 'applied') throw new Error('funding failed');
    const receivers = devnet.accounts.customers.map((c) => c.address);
    const serviceSend = orderSender(apiBase, customer.key, receivers, 'bench');
    const ceilingSend = orderSender(ceilingBase, { id: 'key_bench', secret: ceilingSecret }, receivers, 'ceiling');

    if (IDLE_ORDERS > 0) await withSliceTimings(service, () => idleStep(apiBase, customer.key, receivers));
    await sustained(serviceSend, 1_000_000, CONCURRENCY, Math.min(SECONDS, 5)); // warm-up
    await sustained(ceilingSend, 1_000_000, CONCURRENCY, Math.min(SECONDS, 5));
    const monolithSend = orderSender(monolithBase, { id: 'key_bench', secret: ceilingSecret }, receivers, 'monolith');
    if (monolith) await sustained(monolithSend, 1_000_000, CONCURRENCY, Math.min(SECONDS, 5));
    // The CPU accounting step goes last: run first, the chain work of its orders (delegations signed, broadcast
    // and confirmed after the answers) overlapped the service's headline steps and halved them (2026-11-23).
    let next = 0;
    if (HEADLINE) {
      const svc = await measure('service', serviceSend, 0, service);
      // Before the ceiling's steps, so the service's chain work does not run beside them.
      await drainChainWork(rt.pool, 'the service steps');
      const bare = await measure('ceiling', ceilingSend, svc.next);
      if (svc.sustained && bare.sustained) console.log(`ratio service/ceiling sustained: ${(svc.sustained.okPerSec / bare.sustained.okPerSec).toFixed(2)}`);
      RATES.forEach((rate, i) => {
        const a = svc.rates[i];
        const b = bare.rates[i];
        console.log(`ratio at ${rate}/s offered: ok/s ${(a.okPerSec / b.okPerSec).toFixed(2)}, p50 ${a.p50} vs ${b.p50} ms, p99 ${a.p99} vs ${b.p99} ms`);
      });
      next = bare.next;
      if (monolith) {
        const naive = await measure('monolith', monolithSend, next);
        if (svc.sustained && naive.sustained) console.log(`ratio service/monolith sustained: ${(svc.sustained.okPerSec / naive.sustained.okPerSec).toFixed(2)}`);
        RATES.forEach((rate, i) => console.log(`ratio service/monolith at ${rate}/s offered: ok/s ${(svc.rates[i].okPerSec / naive.rates[i].okPerSec).toFixed(2)}`));
        next = naive.next;
      }
    }
    const classify = classifier({
      service: service.pid!, chain: chain?.pid, ceiling: ceiling.pid!, monolith: monolith?.pid, dbName: decodeURIComponent(new URL(world.cfg.DATABASE_URL).pathname.slice(1)),
    });
    if (CPU_RATE > 0) {
      await sleep(5_000);
      const n = await cpuStep('service', serviceSend, next, classify, service);
      await drainChainWork(rt.pool, 'the CPU step');
      await sleep(2_000);
      next = await cpuStep('ceiling', ceilingSend, n, classify);
      if (monolith) next = await cpuStep('monolith', monolithSend, next, classify);
    }
    // The monolith goes on working through requests its clients gave up on (it cannot cancel them): stopped
    // first, its backlog would be charged to the drain's window (its PostgreSQL work is in this world's database).
    if (monolith) await stopChild(monolith);
    if (CHAIN_DRAIN > 0) await drainStep(rt, orderSender(apiBase, customer.key, receivers, 'drain'), next, classify);
  } finally {
    await Promise.all(children.map(stopChild));
    await commandsPerOrder(rt).catch((err) => console.error(`commands per order: ${(err as Error).message}`));
    await rt.pool.query('DROP TABLE IF EXISTS bench_ceiling, bench_monolith_orders, bench_monolith_accounts').catch(() => undefined);
    rt.pool.on('error', () => undefined);
    if (process.env.BENCH_VERIFY_REPLAY !== '0') {
      // The world's replay is verified on the way out, as in the tests.
      await dropWorld(world, rt).catch((err) => console.error(`teardown: ${(err as Error).message}`));
    } else {
      await rt.log.deleteTopics(Object.values(rt.codec.topics).map((t) => t.topic)).catch(() => undefined);
      await dropWorld(world).catch(() => undefined);
    }
    await Promise.allSettled([rt.close(), devnet.stop()]);
  }
}

main().then(() => process.exit(0), (err) => {
  console.error(err);
  process.exit(1);
});
