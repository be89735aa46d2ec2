/**
 * Ledger processor benchmark (not a test). Run against the test stack:
 *   make test-stack-up && infra/env/load.sh test -- npx tsx bench/processor.ts
 * Prints, in one run on one machine:
 *   1. commands per second the processor applies from a pre-filled log, per max batch size;
 *   2. append-to-reply latency p50/p99 of CommandBus.submit at fixed offered rates (processor + relay running);
 *      (and the processor's PostgreSQL round trips per applied slice and commands per slice, counted on the client)
 *   3. transactions per second pgbench reaches with the SQL the processor runs for one command, and the
 *      ratio of (1) at batch size 1 to it.
 * Environment: BENCH_COMMANDS (default 4000), BENCH_RATES (default 50,200,500), BENCH_SECONDS (default 5).
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import pg from 'pg';
import type { Command } from '../services/domain/commands';
import { parseConfig } from '../services/platform/config';
import { commandBusFor, type CommandBus } from '../services/platform/command-bus';
import { createRuntime, type Runtime } from '../services/runtime';
import { startRoles } from '../services/roles';
import { dropWorld, newWorld, type World } from '../test/support/world';
import { percentile } from './figures';

const COMMANDS = Number(process.env.BENCH_COMMANDS ?? 4000);
const RATES = (process.env.BENCH_RATES ?? '50,200,500').split(',').map(Number);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const BATCH_SIZES = [1, 10, 100, 500];

async function withWorld<T>(
  label: string, env: Record<string, string>, fn: (rt: Runtime, bus: CommandBus, world: World) => Promise<T>, verifyReplay = true,
): Promise<T> {
  const world = newWorld(label, { LOG_LEVEL: 'error', ...env });
  const rt = await createRuntime(parseConfig(world.env));
  const bus = commandBusFor(rt, { timeoutMs: 10_000 });
  await bus.start();
  try {
    return await fn(rt, bus, world);
  } finally {
    await bus.stop();
    if (!verifyReplay) await rt.log.deleteTopics(Object.values(rt.codec.topics).map((t) => t.topic)).catch(() => undefined);
    await dropWorld(world, verifyReplay ? rt : undefined);
    await rt.close();
  }
}

/** Round trips of every pg client in this process (a multi-statement simple query is one), and transactions begun. */
const trips = { queries: 0, slices: 0 };
const clientQuery = pg.Client.prototype.query;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  trips.queries++;
  const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string } | undefined)?.text;
  if (text?.startsWith('BEGIN')) trips.slices++;
  return (clientQuery as (...a: unknown[]) => unknown).apply(this, args);
} as typeof pg.Client.prototype.query;

async function applyRate(maxBatch: number): Promise<number> {
  return withWorld(`benchbatch${maxBatch}`, { PROCESSOR_MAX_BATCH: String(maxBatch) }, async (rt, bus) => {
    const accounts = Array.from({ length: 30 }, (_, i) => `acc_bench${i}`);
    const commands: Command[] = accounts.map((accountId) => bus.stamp({ type: 'account.create', accountId, brand: rt.cfg.BRAND, network: rt.cfg.NETWORK, ownerAddress: null, displayName: null }, false));
    for (let i = 0; i < COMMANDS; i++) commands.push(bus.stamp({ type: 'balance.adjust', accountId: accounts[i % accounts.length], amountSun: 1_000n, memo: 'bench' }, false));
    for (let i = 0; i < commands.length; i += 500) await bus.append(commands.slice(i, i + 500));
    const started = Date.now();
    const before = { ...trips };
    let polls = 0;
    const roles = await startRoles(rt, ['processor']);
    while (true) {
      polls++;
      const { rows } = await rt.pool.query("SELECT count(*)::int AS n FROM command_results WHERE outcome <> 'pending'");
      if (rows[0].n >= commands.length) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const seconds = (Date.now() - started) / 1000;
    // The processor's round trips: all counted, less this loop's polls (the role's start-up queries are in it: a few).
    const slices = trips.slices - before.slices;
    const perSlice = (trips.queries - before.queries - polls) / slices;
    console.log(`  max batch ${String(maxBatch).padStart(3)}: ${perSlice.toFixed(1)} PostgreSQL round trips per slice (${slices} slices, ${(commands.length / slices).toFixed(1)} commands per slice)`);
    await Promise.all(roles.map((r) => r.stop()));
    return commands.length / seconds;
  });
}

async function latencyAt(rates: number[]): Promise<Array<{ rate: number; p50: number; p99: number; achieved: number }>> {
  return withWorld('benchlatency', {}, async (rt, bus) => {
    const roles = await startRoles(rt, ['processor', 'relay']);
    const accounts = Array.from({ length: 30 }, (_, i) => `acc_lat${i}`);
    for (const accountId of accounts) await bus.submit({ type: 'account.create', accountId, brand: rt.cfg.BRAND, network: rt.cfg.NETWORK, ownerAddress: null, displayName: null });
    const out = [];
    for (const rate of rates) {
      const latencies: number[] = [];
      const pending: Promise<void>[] = [];
      const total = rate * SECONDS;
      const started = Date.now();
      for (let i = 0; i < total; i++) {
        const due = started + (i * 1000) / rate;
        const wait = due - Date.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        const t0 = performance.now();
        pending.push(bus.submit({ type: 'balance.adjust', accountId: accounts[i % accounts.length], amountSun: 1n, memo: 'lat' }).then(() => void latencies.push(performance.now() - t0)));
      }
      await Promise.all(pending);
      const elapsed = (Date.now() - started) / 1000;
      latencies.sort((a, b) => a - b);
      out.push({ rate, p50: percentile(latencies, 50), p99: percentile(latencies, 99), achieved: total / elapsed });
    }
    await Promise.all(roles.map((r) => r.stop()));
    return out;
  });
}

async function pgbenchTps(): Promise<number> {
  return withWorld('benchpg', {}, async (_rt, _bus, world) => {
    const script = path.join(__dirname, 'processor-one-command.sql');
    const url = new URL(world.cfg.DATABASE_URL);
    const output = execFileSync('pgbench', ['-n', '-c', '3', '-j', '1', '-T', String(SECONDS), '-f', script, '-h', url.hostname, '-p', url.port || '5432', '-U', url.username || 'postgres', decodeURIComponent(url.pathname.slice(1))], { encoding: 'utf8' });
    const match = output.match(/tps = ([\d.]+)/);
    if (!match) throw new Error(`pgbench printed no tps:\n${output}`);
    return Number(match[1]);
    // pgbench writes rows no command on the log explains: no replay check for this world.
  }, false);
}

async function main(): Promise<void> {
  console.log(`processor benchmark: ${COMMANDS} adjustments, 3 partitions, ${new Date().toISOString()}`);
  const rates: Record<number, number> = {};
  for (const size of BATCH_SIZES) {
    rates[size] = await applyRate(size);
    console.log(`  apply rate, max batch ${String(size).padStart(3)}: ${rates[size].toFixed(0)} commands/s`);
  }
  for (const r of await latencyAt(RATES)) {
    console.log(`  append-to-reply at ${String(r.rate).padStart(4)}/s offered (${r.achieved.toFixed(0)}/s achieved): p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms`);
  }
  const tps = await pgbenchTps();
  console.log(`  pgbench, the processor's SQL for one command, 3 clients: ${tps.toFixed(0)} tps`);
  console.log(`  ratio processor(batch 1) / pgbench: ${(rates[1] / tps).toFixed(2)}; processor(batch 500) / pgbench: ${(rates[500] / tps).toFixed(2)}`);
  process.exit(0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
