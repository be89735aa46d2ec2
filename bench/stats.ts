/**
 * Stats benchmark (not a test). Run against the test stack:
 *   make bench-stats      (= infra/env/load.sh test -- npx tsx bench/stats.ts)
 * Order events are written straight onto the world's order-events topic (the processor is not what is
 * measured here), then it prints:
 *   1. rebuild: `rebuild-stats` over BENCH_EVENTS events (default 200,000: BENCH_ORDERS orders of one
 *      account over 13 months, two events each, the rest spread over 1,000 other accounts), its rate and
 *      the time that rate gives for 1,000,000 events (run BENCH_EVENTS=1000000 to measure it: loading the
 *      topic alone takes minutes on the shared machine). BENCH_PROF_DIR=dir writes a CPU profile of this
 *      process during the rebuild there (open it in Chrome DevTools or speedscope);
 *   2. GET /v1/account/stats over 13 months for that account (signed request, real HTTP): p50/p99 over
 *      BENCH_REQUESTS requests at utc_offset_minutes 0, -300, +330 and +345 (all from the rollups),
 *      BENCH_ROUNDS (3) rounds each, printed as the median of the rounds' p50 and p99 and each round's;
 *   3. projection lag: BENCH_RATE orders per second (default 2,000; two events each) for BENCH_SECONDS
 *      (default 5) with the stats role running, then how long after the load stops until it is caught up;
 *      BENCH_ROUNDS bursts, the median and each.
 */
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import type { OrderEvent } from '../services/domain/order-events';
import type { OutgoingRecord } from '../services/platform/kafka';
import { replayAndVerify } from '../services/ops/replay';
import { startRoles } from '../services/roles';
import { STATS_GROUP } from '../services/stats/consumer';
import { rebuildStats } from '../services/stats/rebuild';
import { accountStats, planFor, resolveRange } from '../services/stats/account-stats';
import { readStatsInput } from '../services/stats/store';
import { stringifyJson } from '../services/platform/json';
import { signUp, startIdentityStack } from '../test/support/identity';
import { signedGet } from '../test/support/stats';
import { median, percentile } from './figures';
import { machine, ORDERS, orderEvents, RANGE_MS, REQUESTS, ROUNDS, spreadAt } from './stats-world';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 200_000);
const RATE = Number(process.env.BENCH_RATE ?? 2_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const PROF_DIR = process.env.BENCH_PROF_DIR;
const ms = (x: number) => x.toFixed(1);

/** Runs `fn` under the V8 CPU profiler when BENCH_PROF_DIR is set, and writes `<name>.cpuprofile` there. */
async function profiled<T>(name: string, fn: () => Promise<T>): Promise<T> {
  if (!PROF_DIR) return fn();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  try {
    return await fn();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    const file = join(PROF_DIR, `${name}-${Date.now()}.cpuprofile`);
    await writeFile(file, JSON.stringify(profile));
    process.stderr.write(`  CPU profile: ${file}\n`);
    session.disconnect();
  }
}

let seq = 0;
const nextId = () => `ord_bench${(seq++).toString(16).padStart(16, '0')}`;

async function main(): Promise<void> {
  const stack = await startIdentityStack('benchstats', { LOG_LEVEL: 'error' });
  const { rt } = stack;
  const topic = rt.codec.topicName('orderEvents');
  const send = async (events: OrderEvent[]) => {
    const records: OutgoingRecord[] = await Promise.all(events.map((e) => rt.codec.encodeOrderEvent(e)));
    for (let i = 0; i < records.length; i += 1_000) await rt.log.send(topic, records.slice(i, i + 1_000));
  };
  const endTotal = async () => [...(await rt.log.endOffsets(topic)).values()].reduce((a, b) => a + b, 0n);
  const storedTotal = async () => (await rt.pool.query('SELECT coalesce(sum(next_offset), 0)::bigint AS n FROM consumer_offsets WHERE consumer_group = $1 AND topic = $2', [STATS_GROUP, topic])).rows[0].n as bigint;
  try {
    const owner = await signUp(stack.base);
    const now = Date.now();
    // 1. Load the topic.
    let t0 = performance.now();
    const others = Math.max(0, Math.floor(EVENTS / 2) - ORDERS);
    for (let i = 0; i < ORDERS; i += 10_000) {
      const chunk: OrderEvent[] = [];
      for (let n = i; n < Math.min(ORDERS, i + 10_000); n++) chunk.push(...orderEvents(nextId(), owner.accountId, spreadAt(now, n), n));
      await send(chunk);
    }
    for (let i = 0; i < others; i += 10_000) {
      const chunk: OrderEvent[] = [];
      for (let n = i; n < Math.min(others, i + 10_000); n++) chunk.push(...orderEvents(nextId(), `acc_bench${(n % 1_000).toString().padStart(4, '0')}`, now - Math.floor((n / others) * RANGE_MS), n));
      await send(chunk);
    }
    const total = await endTotal();
    console.log(`loaded ${total} order events (${ORDERS} orders of one account, ${others} of 1,000 others) in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

    // 2. Rebuild.
    const rebuilt = await profiled('rebuild-stats', () => rebuildStats(rt, (line) => process.stderr.write(`  ${line}\n`)));
    const rate = rebuilt.events / (rebuilt.ms / 1000);
    console.log(`rebuild-stats: ${rebuilt.events} events in ${(rebuilt.ms / 1000).toFixed(1)} s = ${Math.round(rate)} events/s` +
      `${rebuilt.events < 1_000_000 ? `; 1,000,000 events at that rate: ${(1_000_000 / rate).toFixed(0)} s (extrapolated)` : ''} ${machine()}`);

    // 3. Stats p99 over 13 months.
    for (const offset of [0, -300, 330, 345]) {
      // Each request's `to` differs by a millisecond: the API accepts a signature once.
      const path = (i: number) => `/v1/account/stats?from=${new Date(now - RANGE_MS).toISOString()}&to=${new Date(now + i).toISOString()}&utc_offset_minutes=${offset}`;
      const first = await signedGet(stack.base, owner.key, path(ROUNDS * REQUESTS));
      if (first.status !== 200 || first.body.totals.orders !== ORDERS) throw new Error(`unexpected answer: ${first.status} ${first.text.slice(0, 300)}`);
      const rounds: Array<{ p50: number; p99: number }> = [];
      for (let round = 0; round < ROUNDS; round++) {
        const times: number[] = [];
        for (let i = 0; i < REQUESTS; i++) {
          t0 = performance.now();
          const res = await signedGet(stack.base, owner.key, path(round * REQUESTS + i));
          times.push(performance.now() - t0);
          if (res.status !== 200) throw new Error(`status ${res.status}`);
        }
        times.sort((a, b) => a - b);
        rounds.push({ p50: percentile(times, 50), p99: percentile(times, 99) });
      }
      console.log(`GET /v1/account/stats, 13 months, ${ORDERS} orders, utc_offset_minutes=${offset} (clamped=${first.body.clamped}, ${first.body.series.length} days): ` +
        `p50 ${ms(median(rounds.map((r) => r.p50)))} ms, p99 ${ms(median(rounds.map((r) => r.p99)))} ms (medians of ${ROUNDS} rounds of ${REQUESTS} requests: ` +
        `${rounds.map((r) => `${ms(r.p50)}/${ms(r.p99)}`).join(', ')}) ${machine()}`);
    }

    // Context for the figures above: the same loop on a trivial signed read, and the stats work alone (no HTTP, no auth).
    const balance: number[] = [];
    for (let i = 0; i < REQUESTS; i++) {
      // The same endpoint over one hour: signature check, budget, routing and JSON with almost no stats work.
      t0 = performance.now();
      const res = await signedGet(stack.base, owner.key, `/v1/account/stats?from=${new Date(now - 3_600_000).toISOString()}&to=${new Date(now + i).toISOString()}`);
      balance.push(performance.now() - t0);
      if (res.status !== 200) throw new Error(`baseline: ${res.status} ${res.text.slice(0, 200)}`);
    }
    balance.sort((a, b) => a - b);
    console.log(`baseline GET /v1/account/stats over one hour (HTTP, signature, budget): p50 ${percentile(balance, 50).toFixed(1)} ms, p99 ${percentile(balance, 99).toFixed(1)} ms ${machine()}`);
    for (const offset of [0, 330]) {
      const core: number[] = [];
      for (let i = 0; i < REQUESTS; i++) {
        t0 = performance.now();
        const range = resolveRange({ from: now - RANGE_MS, to: now + i, utcOffsetMinutes: offset }, Date.now());
        if (range === 'invalid_range') throw new Error('range');
        stringifyJson(accountStats(range, await readStatsInput(rt.pool, owner.accountId, planFor(range), offset)));
        core.push(performance.now() - t0);
      }
      core.sort((a, b) => a - b);
      console.log(`stats work alone (SQL reads + assembly + JSON, offset ${offset}): p50 ${percentile(core, 50).toFixed(1)} ms, p99 ${percentile(core, 99).toFixed(1)} ms`);
    }

    // 4. Projection lag at RATE orders per second.
    const roles = await startRoles(rt, ['stats']);
    try {
      const bursts: Array<{ achieved: number; behind: bigint; caughtUpMs: number }> = [];
      for (let round = 0; round < ROUNDS; round++) {
        const perTick = Math.max(1, Math.round(RATE / 10));
        const started = performance.now();
        let sent = 0;
        while (performance.now() - started < SECONDS * 1000) {
          const tick = performance.now();
          const batch: OrderEvent[] = [];
          for (let i = 0; i < perTick; i++) batch.push(...orderEvents(nextId(), `acc_bench${(sent + i) % 1_000}`, Date.now(), sent + i));
          await send(batch);
          sent += perTick;
          const wait = 100 - (performance.now() - tick);
          if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        }
        const stopped = performance.now();
        const achieved = sent / ((stopped - started) / 1000);
        const end = await endTotal();
        let behind: bigint | null = null;
        for (let stored = await storedTotal(); stored < end; stored = await storedTotal()) {
          behind ??= end - stored;
          await new Promise((r) => setTimeout(r, 20));
        }
        bursts.push({ achieved, behind: behind ?? 0n, caughtUpMs: performance.now() - stopped });
        console.log(`  burst ${round + 1}: ${sent} orders at ${Math.round(achieved)} orders/s (${2 * sent} events, target ${RATE}/s); ${behind ?? 0n} events behind when the load stopped, caught up ${bursts[round].caughtUpMs.toFixed(0)} ms after ${machine()}`);
      }
      console.log(`projection lag after a ${SECONDS} s burst at ${RATE} orders/s: caught up ${median(bursts.map((b) => b.caughtUpMs)).toFixed(0)} ms after the load stopped (median of ${ROUNDS}; reached ` +
        `${Math.round(median(bursts.map((b) => b.achieved)))} orders/s, ${median(bursts.map((b) => Number(b.behind)))} events behind at the stop) ${machine()}`);
    } finally {
      await Promise.allSettled(roles.map((r) => r.stop()));
    }
    const report = await replayAndVerify(rt);
    if (!report.identical) throw new Error('replay differs');
  } finally {
    await rt.log.deleteTopics(Object.values(rt.codec.topics).map((t) => t.topic)).catch(() => undefined);
    await stack.stop();
  }
}

main().then(() => process.exit(0), (err) => {
  console.error(err);
  process.exit(1);
});
