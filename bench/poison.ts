/**
 * Poison benchmark (not a test): how much a stream of poison commands (a U+0000 in a memo, which
 * PostgreSQL cannot store) delays other accounts' commands on the same log. Run against the test stack:
 *   make bench-poison     (= infra/env/load.sh test -- npx tsx bench/poison.ts)
 *
 * The edge refuses such input since issue 12 (2000), so the poison is appended as a producer that skips
 * the edge would (or a log written before the fix holds): through the command bus, straight onto
 * account-commands. The processor finds each one by bisection and refuses it (`unprocessable`).
 * One world, the processor and relay in this process; BENCH_VICTIMS victim accounts each submit
 * balance.adjust commands in a closed loop for BENCH_SECONDS, first alone, then while an attacker
 * submits BENCH_POISON_PER_SEC poison commands per second. Prints victims' p50/p99/max, throughput and
 * the poison commands refused, side by side.
 */
import { randomId } from '../services/domain/ids';
import type { Config } from '../services/platform/config';
import { startRoles } from '../services/roles';
import type { CommandBus } from '../services/platform/command-bus';
import { dropWorld, newWorld, openBus, openRuntime } from '../test/support/world';
import { percentile } from './figures';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const VICTIMS = Number(process.env.BENCH_VICTIMS ?? 16);
const POISON_PER_SEC = Number(process.env.BENCH_POISON_PER_SEC ?? 20);

interface Figures {
  ok: number;
  failed: number;
  latencies: number[];
  poisonRefused: number;
  poisonSent: number;
}

async function account(bus: CommandBus, cfg: Pick<Config, 'BRAND' | 'NETWORK'>): Promise<string> {
  const result = await bus.submit({ type: 'account.create', accountId: randomId('account'), brand: cfg.BRAND, network: cfg.NETWORK, ownerAddress: null, displayName: null });
  if (result.outcome !== 'applied') throw new Error(`account not created: ${JSON.stringify(result)}`);
  return result.body!.account_id as string;
}

async function run(bus: CommandBus, victims: string[], attacker: string, poisonPerSec: number): Promise<Figures> {
  const figures: Figures = { ok: 0, failed: 0, latencies: [], poisonRefused: 0, poisonSent: 0 };
  const until = Date.now() + SECONDS * 1000;
  const victimLoops = victims.map(async (accountId) => {
    while (Date.now() < until) {
      const t0 = performance.now();
      const result = await bus.submit({ type: 'balance.adjust', accountId, amountSun: 1n, memo: 'victim' });
      figures.latencies.push(performance.now() - t0);
      if (result.outcome === 'applied') figures.ok += 1;
      else figures.failed += 1;
    }
  });
  const poisons: Array<Promise<unknown>> = [];
  const attack = (async () => {
    if (poisonPerSec <= 0) return;
    for (let i = 0; Date.now() < until; i++) {
      figures.poisonSent += 1;
      poisons.push(bus.submit({ type: 'balance.adjust', accountId: attacker, amountSun: 1n, memo: `poison ${i}\u0000` }).then((r) => {
        if (r.outcome === 'refused') figures.poisonRefused += 1;
      }));
      await new Promise((r) => setTimeout(r, 1000 / poisonPerSec));
    }
  })();
  await Promise.all([...victimLoops, attack]);
  await Promise.all(poisons);
  return figures;
}

function row(label: string, f: Figures): string {
  const sorted = [...f.latencies].sort((a, b) => a - b);
  const cells = [
    label.padEnd(26), `${(f.ok / SECONDS).toFixed(0)}/s`.padStart(8), percentile(sorted, 50).toFixed(1).padStart(8),
    percentile(sorted, 99).toFixed(1).padStart(8), (sorted[sorted.length - 1] ?? NaN).toFixed(1).padStart(8),
    String(f.failed).padStart(7), `${f.poisonRefused}/${f.poisonSent}`.padStart(10),
  ];
  return cells.join(' ');
}

async function main(): Promise<void> {
  const world = newWorld('benchpoison', { LOG_LEVEL: 'error', BUDGET_WRITES_PER_SEC: '100000' });
  const rt = await openRuntime(world);
  const bus = await openBus(rt);
  const roles = await startRoles(rt, ['processor', 'relay']);
  try {
    const victims = await Promise.all(Array.from({ length: VICTIMS }, () => account(bus, rt.cfg)));
    const attacker = await account(bus, rt.cfg);
    const clean = await run(bus, victims, attacker, 0);
    const poisoned = await run(bus, victims, attacker, POISON_PER_SEC);
    console.log(`poison benchmark: ${VICTIMS} victim accounts in a closed loop, ${SECONDS} s per run, ${POISON_PER_SEC} poison commands/s in the second run`);
    console.log(`${'run'.padEnd(26)} ${'victims'.padStart(8)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'max ms'.padStart(8)} ${'failed'.padStart(7)} ${'poison'.padStart(10)}`);
    console.log(row('victims alone', clean));
    console.log(row('victims + poison stream', poisoned));
  } finally {
    await Promise.allSettled(roles.map((r) => r.stop()));
    await bus.stop();
    await dropWorld(world, rt).catch((err) => console.error(`replay check: ${(err as Error).message.slice(0, 500)}`));
    await rt.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
