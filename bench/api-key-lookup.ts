/**
 * The API-key row behind a signed request, side by side in one process (not a test):
 *   infra/env/load.sh test -- npx tsx bench/api-key-lookup.ts
 * `read`: the row read from PostgreSQL per request (as before services/api/auth/key-cache.ts);
 * `cache`: the kept row after the group sync on the listening connection (key-cache.ts).
 * BENCH_CONCURRENCY (64) lookups in flight on a pool of DATABASE_POOL_MAX (8) for BENCH_SECONDS (5) per
 * round, BENCH_ROUNDS (3) rounds alternating; prints lookups/s and p50/p99 per round, and the medians.
 */
import os from 'node:os';
import { apiKeyCache } from '../services/api/auth/key-cache';
import { findApiKey } from '../services/api/stores/api-keys';
import { createRuntime } from '../services/runtime';
import { dropWorld, newWorld } from '../test/support/world';
import { median, percentile, sorted } from './figures';

const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 64);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const KEYS = 20;

async function round(lookup: (id: string) => Promise<unknown>, ids: string[]): Promise<{ perSec: number; p50: number; p99: number }> {
  const times: number[] = [];
  const until = performance.now() + SECONDS * 1000;
  let n = 0;
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (performance.now() < until) {
      const started = performance.now();
      if (!(await lookup(ids[n++ % ids.length]))) throw new Error('key not found');
      times.push(performance.now() - started);
    }
  }));
  const asc = sorted(times);
  return { perSec: Math.round(times.length / SECONDS), p50: +percentile(asc, 50).toFixed(2), p99: +percentile(asc, 99).toFixed(2) };
}

async function main(): Promise<void> {
  console.log(`machine: ${os.cpus().length} cores, Node ${process.version}, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  const world = newWorld('benchkeys', { LOG_LEVEL: 'error', DATABASE_POOL_MAX: process.env.DATABASE_POOL_MAX ?? '8' });
  const rt = await createRuntime(world.cfg);
  try {
    const ids = Array.from({ length: KEYS }, (_, i) => `key_${i.toString(16).padStart(24, '0')}`);
    await rt.pool.query(
      `INSERT INTO api_keys (id, account_id, name, scopes, secret_enc, created_at)
       SELECT id, 'acc_bench', NULL, '{orders.write}', 'sealed', now() FROM unnest($1::text[]) AS t(id)`, [ids],
    );
    const cache = apiKeyCache(rt);
    await cache.find(ids[0]);
    while (!cache.serving) await new Promise((r) => setTimeout(r, 50));
    const sides = { read: (id: string) => findApiKey(rt.pool, id), cache: (id: string) => cache.find(id) };
    const figures: Record<string, Array<{ perSec: number; p50: number; p99: number }>> = { read: [], cache: [] };
    for (let i = 0; i < ROUNDS; i++) {
      for (const [name, lookup] of Object.entries(sides)) {
        const f = await round(lookup, ids);
        figures[name].push(f);
        console.log(`round ${i + 1} ${name}: ${f.perSec} lookups/s, p50 ${f.p50} ms, p99 ${f.p99} ms (load ${os.loadavg()[0].toFixed(1)})`);
      }
    }
    for (const name of Object.keys(sides)) {
      const f = figures[name];
      console.log(`median ${name}: ${median(f.map((x) => x.perSec))} lookups/s, p50 ${median(f.map((x) => x.p50))} ms, p99 ${median(f.map((x) => x.p99))} ms`);
    }
  } finally {
    apiKeyCache(rt).close();
    await rt.close();
    await dropWorld(world).catch(() => undefined);
  }
}

main().then(() => process.exit(0), (err) => {
  console.error(err);
  process.exit(1);
});
