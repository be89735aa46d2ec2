/**
 * Where the processor's `reply` time goes (not a test): order.create commands for ONE account (one partition,
 * as bench/orders.ts sends them) submitted through the command bus at fixed offered rates, with the processor
 * and the relay running in this process. Each command is timed at: appended (the log acknowledged it), its
 * batch handed to the consumer (fetch), decoded, its slice's transaction begun and each PostgreSQL round trip
 * of it, committed, and answered (the bus holds the result). Prints p50/p99 per stage and the median time of
 * each round trip of a slice. Run: infra/env/load.sh test -- npx tsx bench/processor-stages.ts
 * Environment: BENCH_RATES (default 400,500), BENCH_SECONDS (default 8).
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { Command } from '../services/domain/commands';
import { parseConfig } from '../services/platform/config';
import { commandBusFor } from '../services/platform/command-bus';
import { createRuntime } from '../services/platform/runtime';
import { startRoles } from '../services/roles';
import { dropWorld, newWorld } from '../test/support/world';
import { percentile } from './figures';

const RATES = (process.env.BENCH_RATES ?? '400,500').split(',').map(Number);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);

interface Times { submit: number; appended?: number; fetched?: number; decoded?: number; begun?: number; committed?: number; answered?: number }
const times = new Map<string, Times>();
interface Slice { ids: string[]; trips: Array<{ sql: string; ms: number }> }
const slices: Slice[] = [];

// The processor's transactions: the client whose BEGIN locks the processor's stored offset, until its COMMIT.
const open = new Map<pg.Client, Slice>();
let fetchedNow: string[] = [];
const clientQuery = pg.Client.prototype.query;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  const text = (typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string } | undefined)?.text) ?? '';
  const t0 = performance.now();
  if (text.startsWith('BEGIN') && text.includes('ledger-processor')) {
    const slice: Slice = { ids: fetchedNow, trips: [] };
    for (const id of slice.ids) { const t = times.get(id); if (t && t.begun === undefined) t.begun = t0; }
    open.set(this, slice);
  }
  const slice = open.get(this);
  const result = (clientQuery as (...a: unknown[]) => unknown).apply(this, args);
  if (slice && result instanceof Promise) {
    void result.then(() => {
      const t1 = performance.now();
      slice.trips.push({ sql: text.replace(/\s+/g, ' ').slice(0, 60), ms: t1 - t0 });
      if (text === 'COMMIT' || text === 'ROLLBACK') {
        open.delete(this);
        slices.push(slice);
        for (const id of slice.ids) { const t = times.get(id); if (t && t.committed === undefined) t.committed = t1; }
      }
    }, () => open.delete(this));
  }
  return result;
} as typeof pg.Client.prototype.query;

const stat = (xs: number[]) => {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  return `${percentile(s, 50).toFixed(1)} / ${percentile(s, 99).toFixed(1)}`;
};

async function main(): Promise<void> {
  const world = newWorld('benchstages', { LOG_LEVEL: 'error' });
  const rt = await createRuntime(parseConfig(world.env));
  // The consumer's batches and decodes, timed by wrapping what the processor calls.
  let batchStart = 0;
  const runBatchConsumer = rt.log.runBatchConsumer.bind(rt.log);
  rt.log.runBatchConsumer = (options) => runBatchConsumer({
    ...options,
    handler: (batch, control) => {
      batchStart = performance.now();
      fetchedNow = [];
      return options.handler(batch, control);
    },
  });
  const decode = rt.codec.decodeCommand.bind(rt.codec);
  rt.codec.decodeCommand = async (value: Buffer) => {
    const command = await decode(value);
    const t = times.get(command.commandId);
    if (t && t.fetched === undefined) {
      t.fetched = batchStart || performance.now();
      t.decoded = performance.now();
      fetchedNow.push(command.commandId);
    }
    return command;
  };
  const bus = commandBusFor(rt, { timeoutMs: 10_000 });
  await bus.start();
  const roles = await startRoles(rt, ['processor', 'relay']);
  const accountId = 'acc_stages';
  await bus.submit({ type: 'account.create', accountId, brand: rt.cfg.BRAND, network: rt.cfg.NETWORK, ownerAddress: null, displayName: null });
  await bus.submit({ type: 'balance.adjust', accountId, amountSun: 10n ** 14n, memo: 'stages' });
  const order = (): Omit<Extract<Command, { type: 'order.create' }>, 'commandId' | 'issuedAt' | 'deadlineAt' | 'replyTo'> => ({
    type: 'order.create', accountId, clientOrderId: null, idempotencyKey: null, requestHash: randomUUID(), resource: 'energy', amount: 65_000,
    tier: '5m', durationSeconds: 300, receiver: 'TQ4iYRqJ3mdBzUZq1a4pg8x7TmxGqPNK4u', receiverActive: true, activate: null, maxPriceSun: null,
    quoteId: null, quoteExpiresAt: null, priceSunPerUnit: 40n, paySun: 2_600_000n, activateSun: 0n, source: 'api', memo: null, supplier: 'pool',
  });
  console.log(`processor stages: order.create, one account, ${SECONDS} s per rate, ${new Date().toISOString()}`);
  for (const rate of RATES) {
    times.clear();
    slices.length = 0;
    const pending: Promise<unknown>[] = [];
    const total = rate * SECONDS;
    const started = Date.now();
    let outcomes = 0;
    for (let i = 0; i < total; i++) {
      const due = started + (i * 1000) / rate;
      const wait = due - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const id = `cmd_${randomUUID()}`;
      const t: Times = { submit: performance.now() };
      times.set(id, t);
      pending.push(bus.submit(order() as never, undefined, id, () => (t.appended = performance.now())).then((r) => {
        t.answered = performance.now();
        if (r.outcome === 'applied') outcomes++;
      }));
    }
    await Promise.all(pending);
    const all = [...times.values()].filter((t) => t.answered !== undefined && t.committed !== undefined);
    console.log(`  ${rate}/s offered, ${(total / ((Date.now() - started) / 1000)).toFixed(0)}/s achieved, ${outcomes}/${total} applied, ${slices.length} slices (${(all.length / Math.max(1, slices.length)).toFixed(1)} commands each); p50 / p99 ms:`);
    const d = (a: keyof Times, b: keyof Times) => all.map((t) => (t[b] as number) - (t[a] as number));
    console.log(`    append (submit -> log ack)       ${stat(d('submit', 'appended'))}`);
    console.log(`    reply  (log ack -> answered)     ${stat(d('appended', 'answered'))}`);
    console.log(`      log ack -> decoded (fetch)     ${stat(d('appended', 'decoded'))}`);
    console.log(`      decoded -> BEGIN sent          ${stat(d('decoded', 'begun'))}`);
    console.log(`      BEGIN -> COMMIT done           ${stat(d('begun', 'committed'))}`);
    console.log(`      COMMIT -> answered (publish)   ${stat(d('committed', 'answered'))}`);
    const byIndex = new Map<number, { sql: string; ms: number[] }>();
    for (const s of slices) s.trips.forEach((trip, i) => {
      const e = byIndex.get(i) ?? { sql: trip.sql, ms: [] };
      e.ms.push(trip.ms);
      byIndex.set(i, e);
    });
    const tripCounts = slices.map((s) => s.trips.length).sort((a, b) => a - b);
    console.log(`    round trips per slice: median ${percentile(tripCounts, 50)}; per round trip (p50 / p99 ms):`);
    for (const [i, e] of byIndex) if (e.ms.length >= slices.length / 2) console.log(`      ${i}: ${stat(e.ms)}  ${e.sql}`);
  }
  await Promise.all(roles.map((r) => r.stop()));
  await bus.stop();
  await dropWorld(world, rt);
  await rt.close();
  process.exit(0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
