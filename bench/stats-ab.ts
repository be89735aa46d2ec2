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
 *      rounds of BENCH_REQUESTS (100) reads each, the two versions alternating.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { createPool, inTransaction, type Pool } from '../services/platform/db/pool';
import { stringifyJson } from '../services/platform/json';
import type { OrderFacts } from '../services/stats/projection';

const BASE = process.env.BENCH_BASE;
const ORDERS = Number(process.env.BENCH_ORDERS ?? 100_000);
const BATCH = Number(process.env.BENCH_BATCH ?? 2_000);
const LIVE_ORDERS = Number(process.env.BENCH_LIVE_ORDERS ?? 20_000);
const LIVE_BATCH = Number(process.env.BENCH_LIVE_BATCH ?? 400);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 100);
const DAY = 86_400_000;
const ACCOUNT = 'acc_ab';

const load = () => `[load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}]`;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];

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

function order(n: number, accountId: string, createdAt: number): OrderFacts[] {
  const base = {
    orderId: `ord_ab${n.toString(16).padStart(12, '0')}`, accountId, createdAt, receiver: `TReceiver${n % 40}`, resource: 'energy', amount: 65_000n,
    deliveredAmount: null, totalSun: 2_600_000n, refundedSun: 0n, priceSunPerUnit: 40n + BigInt(n % 7),
  };
  const failed = n % 10 === 0;
  return [
    { ...base, status: 'allocating' },
    failed ? { ...base, status: 'failed', refundedSun: 2_600_000n } : { ...base, status: 'active', deliveredAmount: 65_000n },
  ];
}

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
    for (let n = 0; n < ORDERS; n++) rebuild.push(...order(n, ACCOUNT, now - 395 * DAY + Math.floor((n / ORDERS) * 394 * DAY)));
    const batches = Array.from({ length: Math.ceil(rebuild.length / BATCH) }, (_, i) => rebuild.slice(i * BATCH, (i + 1) * BATCH));
    const r = await project(versions, batches);
    console.log(`rebuild-like, ${rebuild.length} events in batches of ${BATCH} (${names}): ${r.map((ms) => `${Math.round(rebuild.length / (ms / 1000))} events/s`).join(' / ')}; ratio ${(r[0] / r[1]).toFixed(2)} ${load()}`);

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
    console.log(`live-like, ${2 * LIVE_ORDERS} events of 1,000 accounts in batches of ${LIVE_BATCH} (${names}): ${l.map((ms) => `${Math.round((2 * LIVE_ORDERS) / (ms / 1000))} events/s`).join(' / ')}; ratio ${(l[0] / l[1]).toFixed(2)} ${load()}`);

    for (const v of versions) await v.pool.query('ANALYZE');
    for (const offset of [0, 330, 345]) {
      const rounds = versions.map(() => [] as Array<{ p50: number; p99: number }>);
      for (let round = 0; round < ROUNDS; round++) {
        const times = versions.map(() => [] as number[]);
        for (let i = 0; i < REQUESTS; i++) {
          for (let k = 0; k < versions.length; k++) {
            const v = versions[(i + k) % versions.length];
            const t0 = performance.now();
            const range = v.stats.resolveRange({ from: now - 395 * DAY, to: now + i, utcOffsetMinutes: offset }, now + i);
            const answer = v.stats.accountStats(range, (await v.read(v.pool, ACCOUNT, v.stats.planFor(range), offset)) as never);
            stringifyJson(answer);
            times[(i + k) % versions.length].push(performance.now() - t0);
            if ((answer.totals as { orders: number }).orders !== ORDERS) throw new Error(`${v.name}: ${(answer.totals as { orders: number }).orders} orders`);
          }
        }
        times.forEach((t, k) => rounds[k].push({ p50: pct(t, 50), p99: pct(t, 99) }));
      }
      const fmt = (rs: Array<{ p50: number; p99: number }>) => `${median(rs.map((x) => x.p50)).toFixed(1)}/${median(rs.map((x) => x.p99)).toFixed(1)} ms`;
      console.log(`stats read (SQL + assembly + JSON, no HTTP), 13 months, ${ORDERS} orders, offset ${offset}, p50/p99 medians of ${ROUNDS} x ${REQUESTS} (${names}): ${rounds.map(fmt).join(' / ')} ${load()}`);
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
