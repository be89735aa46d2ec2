/**
 * Stats projection and read, before and after a change, side by side in one process (not a test). On a
 * shared machine two separate runs of bench/stats.ts see different loads (the same topic load took 74 s
 * in one and 127 s in the next); here both versions take turns batch by batch and request by request,
 * so the load falls on both alike and the ratio means something.
 *
 *   git archive <before-commit> | tar -x -C /tmp/stats-base && ln -s $PWD/node_modules /tmp/stats-base/
 *   BENCH_BASE=/tmp/stats-base infra/env/load.sh test -- npx tsx bench/stats-ab.ts
 *
 * Each version gets a database of its own on the DATABASE_URL server (its stats migrations only) and runs
 * its own `projectRecords` (consumer.ts: the apply of the live role and of rebuild-stats, in one
 * transaction as there) and its own `readStatsInput` + `accountStats`. Kafka and Avro decoding, the
 * same for both, are left out. Phases:
 *   1. rebuild-like: BENCH_ORDERS (100,000) orders of one account over 13 months, created + final event
 *      adjacent, BENCH_BATCH (2,000) events per transaction;
 *   2. live-like: BENCH_LIVE_ORDERS (20,000) orders of 1,000 accounts created now, each order's created
 *      and final events in consecutive transactions of BENCH_LIVE_BATCH (400) events;
 *   3. the stats read over 13 months of the phase-1 account at offsets 0, +330 and +345: BENCH_ROUNDS (3)
 *      rounds of BENCH_REQUESTS (200) reads each, the two versions alternating, each also with nothing kept
 *      between reads (services/stats/read-cache.ts: as right after the account's projection moved); beside
 *      the wall times, the CPU per read of this process and of the version's PostgreSQL backends (/proc, when
 *      the server runs on this machine), which the machine's load moves much less.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createPool, inTransaction, type Pool } from '../services/platform/db/pool';
import { stringifyJson } from '../services/platform/json';
import { factsOf, type OrderFacts } from '../services/stats/projection';
import { median, percentile, sorted } from './figures';
import { machine, ORDERS, orderEvents, RANGE_MS, REQUESTS, ROUNDS, spreadAt } from './stats-world';

const BASE = process.env.BENCH_BASE;
const BATCH = Number(process.env.BENCH_BATCH ?? 2_000);
const LIVE_ORDERS = Number(process.env.BENCH_LIVE_ORDERS ?? 20_000);
const LIVE_BATCH = Number(process.env.BENCH_LIVE_BATCH ?? 400);
const ACCOUNT = 'acc_ab';

interface Version {
  name: string;
  pool: Pool;
  projectRecords: (items: never[], client: never) => Promise<number[]>;
  read: (pool: Pool, accountId: string, plan: never, offset: number) => Promise<unknown>;
  stats: { accountStats: (range: never, input: never) => Record<string, unknown>; planFor: (range: never) => never; resolveRange: (req: object, now: number) => never };
}

/** A fresh database holding the stats migrations of `root` (Up sections, in order). */
async function databaseFor(root: string, name: string): Promise<Pool> {
  const server = new URL(process.env.DATABASE_URL as string);
  const admin = createPool(Object.assign(new URL(server), { pathname: '/postgres' }).toString(), 1);
  await admin.query(`DROP DATABASE IF EXISTS ${name}`);
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const pool = createPool(Object.assign(new URL(server), { pathname: `/${name}` }).toString(), 2);
  await pool.query('CREATE TABLE consumer_offsets (consumer_group text, topic text, partition int, next_offset bigint, PRIMARY KEY (consumer_group, topic, partition))');
  for (const file of readdirSync(join(root, 'migrations')).filter((f) => /stats/.test(f)).sort()) {
    const sql = readFileSync(join(root, 'migrations', file), 'utf8');
    await pool.query(sql.slice(sql.indexOf('-- Up Migration'), sql.indexOf('-- Down Migration')));
  }
  return pool;
}

async function version(root: string, name: string): Promise<Version> {
  const pool = await databaseFor(root, `stats_ab_${name}`);
  const consumer = await import(join(root, 'services/stats/consumer.ts'));
  const store = await import(join(root, 'services/stats/store.ts'));
  const stats = await import(join(root, 'services/stats/account-stats.ts'));
  return { name, pool, projectRecords: consumer.projectRecords, read: store.readStatsInput, stats };
}

/** Order `n`'s two events as the projection reads them. */
const order = (n: number, accountId: string, createdAt: number): OrderFacts[] =>
  orderEvents(`ord_ab${n.toString(16).padStart(12, '0')}`, accountId, createdAt, n).map((e) => factsOf(e.order as unknown as Record<string, unknown>));

/** Applies `batches` with every version in turn (the first to go alternates); returns ms per version. */
async function project(versions: Version[], batches: OrderFacts[][]): Promise<number[]> {
  const spent = versions.map(() => 0);
  for (const [i, batch] of batches.entries()) {
    const items = batch.map((facts) => ({ record: {}, value: { facts } })) as never[];
    for (let k = 0; k < versions.length; k++) {
      const v = (i + k) % versions.length;
      const t0 = performance.now();
      await inTransaction(versions[v].pool, (client) => versions[v].projectRecords(items, client as never));
      spent[v] += performance.now() - t0;
    }
  }
  return spent;
}

async function main(): Promise<void> {
  if (!BASE) throw new Error('BENCH_BASE: a checkout of the commit to compare with');
  const versions = [await version(resolve(BASE), 'before'), await version(resolve(__dirname, '..'), 'after')];
  const names = versions.map((v) => v.name).join(' / ');
  const now = Date.now();
  try {
    const rebuild: OrderFacts[] = [];
    for (let n = 0; n < ORDERS; n++) rebuild.push(...order(n, ACCOUNT, spreadAt(now, n)));
    const batches = Array.from({ length: Math.ceil(rebuild.length / BATCH) }, (_, i) => rebuild.slice(i * BATCH, (i + 1) * BATCH));
    const r = await project(versions, batches);
    console.log(`rebuild-like, ${rebuild.length} events in batches of ${BATCH} (${names}): ${r.map((ms) => `${Math.round(rebuild.length / (ms / 1000))} events/s`).join(' / ')}; ratio ${(r[0] / r[1]).toFixed(2)} ${machine()}`);

    // Live-like: created events of a slice of orders, then their final events with the next slice's created ones.
    const half = LIVE_BATCH / 2;
    const live: OrderFacts[][] = [];
    for (let i = 0; i <= LIVE_ORDERS; i += half) {
      const batch: OrderFacts[] = [];
      for (let n = i - half; n < i; n++) if (n >= 0 && n < LIVE_ORDERS) batch.push(order(ORDERS + n, `acc_ab${n % 1_000}`, now - 60_000 + n)[1]);
      for (let n = i; n < Math.min(LIVE_ORDERS, i + half); n++) batch.push(order(ORDERS + n, `acc_ab${n % 1_000}`, now - 60_000 + n)[0]);
      if (batch.length > 0) live.push(batch);
    }
    const l = await project(versions, live);
    console.log(`live-like, ${2 * LIVE_ORDERS} events of 1,000 accounts in batches of ${LIVE_BATCH} (${names}): ${l.map((ms) => `${Math.round((2 * LIVE_ORDERS) / (ms / 1000))} events/s`).join(' / ')}; ratio ${(l[0] / l[1]).toFixed(2)} ${machine()}`);

    for (const v of versions) await v.pool.query('ANALYZE');
    // The reads also of each version with nothing kept between requests (a fresh pool object per read has an
    // empty services/stats/read-cache.ts cache): what a read costs right after the account's projection moved.
    const readers = [...versions, ...versions.map((v) => ({ ...v, name: `${v.name}, nothing kept`, read: (pool: Pool, ...rest: [string, never, number]) => v.read({ query: pool.query.bind(pool) } as Pool, ...rest) }))];
    const readerNames = readers.map((v) => v.name).join(' / ');
    // CPU per read, which the load moves much less than wall time: this process's, and that of the version's
    // PostgreSQL backends (their /proc utime + stime, when the server runs on this machine; 10 ms ticks, so
    // only the sum over many reads means something).
    const backends = new Map<Pool, number[]>();
    // A pool closes a connection idle for 10 s: only the processes there before and after a read count.
    const backendCpuMs = (pool: Pool): Map<number, number> => {
      const out = new Map<number, number>();
      for (const pid of backends.get(pool) ?? []) {
        try {
          const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
          out.set(pid, (Number(f[11]) + Number(f[12])) * 10);
        } catch {
          // gone, or the server is not on this machine
        }
      }
      return out;
    };
    for (const offset of [0, 330, 345]) {
      const rounds = readers.map(() => [] as Array<{ p50: number; p99: number; node: number; pg: number | null }>);
      for (let round = 0; round < ROUNDS; round++) {
        const times = readers.map(() => [] as number[]);
        const cpu = readers.map(() => ({ node: 0, pg: 0 as number | null }));
        for (const v of versions) {
          // Both of the pool's connections open (each read takes one), then their server processes.
          await Promise.all([v.pool.query('SELECT 1'), v.pool.query('SELECT 1')]);
          backends.set(v.pool, (await v.pool.query("SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend'")).rows.map((r) => r.pid as number));
        }
        for (let i = 0; i < REQUESTS; i++) {
          for (let k = 0; k < readers.length; k++) {
            const v = readers[(i + k) % readers.length];
            const pg0 = backendCpuMs(v.pool);
            const cpu0 = process.cpuUsage();
            const t0 = performance.now();
            const range = v.stats.resolveRange({ from: now - RANGE_MS, to: now + i, utcOffsetMinutes: offset }, now + i);
            const answer = v.stats.accountStats(range, (await v.read(v.pool, ACCOUNT, v.stats.planFor(range), offset)) as never);
            stringifyJson(answer);
            times[(i + k) % readers.length].push(performance.now() - t0);
            const used = process.cpuUsage(cpu0);
            const pg1 = backendCpuMs(v.pool);
            const c = cpu[(i + k) % readers.length];
            c.node += (used.user + used.system) / 1000;
            c.pg = c.pg === null || pg0.size === 0 ? null : c.pg + [...pg0].reduce((sum, [pid, ms]) => sum + (pg1.get(pid) ?? ms) - ms, 0);
            if ((answer.totals as { orders: number }).orders !== ORDERS) throw new Error(`${v.name}: ${(answer.totals as { orders: number }).orders} orders`);
          }
        }
        times.forEach((t, k) => rounds[k].push({ p50: percentile(sorted(t), 50), p99: percentile(sorted(t), 99), node: cpu[k].node / REQUESTS, pg: cpu[k].pg === null ? null : cpu[k].pg / REQUESTS }));
      }
      const fmt = (rs: Array<{ p50: number; p99: number; node: number; pg: number | null }>) => `${median(rs.map((x) => x.p50)).toFixed(1)}/${median(rs.map((x) => x.p99)).toFixed(1)} ms ` +
        `(CPU ${median(rs.map((x) => x.node)).toFixed(2)} ms node + ${rs.some((x) => x.pg === null) ? '?' : median(rs.map((x) => x.pg as number)).toFixed(2)} ms postgres)`;
      console.log(`stats read (SQL + assembly + JSON, no HTTP), 13 months, ${ORDERS} orders, offset ${offset}, p50/p99 medians of ${ROUNDS} x ${REQUESTS} (${readerNames}): ${rounds.map(fmt).join(' / ')} ${machine()}`);
    }
  } finally {
    for (const v of versions) await v.pool.end();
    const admin = createPool(Object.assign(new URL(process.env.DATABASE_URL as string), { pathname: '/postgres' }).toString(), 1);
    for (const v of versions) await admin.query(`DROP DATABASE IF EXISTS stats_ab_${v.name}`);
    await admin.end();
  }
}

main().then(() => process.exit(0), (err) => {
  console.error(err);
  process.exit(1);
});
