/**
 * `ops restore` benchmark (not a test). Run against the test stack:
 *   make test-stack-up && infra/env/load.sh test -- npx tsx bench/restore.ts
 * Appends BENCH_COMMANDS commands (default 100,000: account creations, then balance adjustments spread
 * over BENCH_ACCOUNTS accounts) to a fresh world's account-commands, then times restoreInto (the code
 * behind `./bin/ops restore --into`) rebuilding a new database from the topics alone. Prints the time
 * and the rate per second. The world's topics and both databases are removed afterwards.
 */
import type { Command } from '../services/domain/commands';
import { commandBusFor } from '../services/platform/command-bus';
import { dropDatabase } from '../services/platform/db/databases';
import { createRuntime } from '../services/runtime';
import { restoreInto } from '../services/ops/restore';
import { dropWorld, newWorld } from '../test/support/world';

const COMMANDS = Number(process.env.BENCH_COMMANDS ?? 100_000);
const ACCOUNTS = Number(process.env.BENCH_ACCOUNTS ?? 300);

async function main(): Promise<void> {
  const world = newWorld('benchrestore', { LOG_LEVEL: 'error' });
  const rt = await createRuntime(world.cfg);
  const bus = commandBusFor(rt, { timeoutMs: 10_000 });
  const target = `${new URL(world.cfg.DATABASE_URL).pathname.slice(1)}_restored`;
  let restoredUrl: string | undefined;
  try {
    const accounts = Array.from({ length: ACCOUNTS }, (_, i) => `acc_restore${i}`);
    const commands: Command[] = accounts.map((accountId) => bus.stamp({ type: 'account.create', accountId, brand: rt.cfg.BRAND, network: rt.cfg.NETWORK, ownerAddress: null, displayName: null }, false));
    for (let i = commands.length; i < COMMANDS; i++) commands.push(bus.stamp({ type: 'balance.adjust', accountId: accounts[i % accounts.length], amountSun: 1_000n, memo: 'bench' }, false));
    const appendStarted = Date.now();
    for (let i = 0; i < commands.length; i += 1000) await bus.append(commands.slice(i, i + 1000));
    console.log(`restore benchmark: ${commands.length} commands over ${ACCOUNTS} accounts, ${world.cfg.TOPIC_PARTITIONS} partitions, one transaction per 500 commands, ${new Date().toISOString()}`);
    console.log(`  appended in ${((Date.now() - appendStarted) / 1000).toFixed(1)} s`);
    const report = await restoreInto(world.cfg, target, () => undefined);
    restoredUrl = report.databaseUrl;
    const journals = report.tables.find((t) => t.table === 'journals')?.rows ?? 0;
    if (report.records !== commands.length) throw new Error(`restored ${report.records} records, appended ${commands.length}`);
    console.log(`  restore: ${report.records} commands (${journals} journals) in ${report.seconds.toFixed(1)} s = ${(report.records / report.seconds).toFixed(0)} commands/s`);
  } finally {
    if (restoredUrl) await dropDatabase(restoredUrl);
    await rt.log.deleteTopics(Object.values(rt.codec.topics).map((t) => t.topic)).catch(() => undefined);
    await rt.close();
    await dropWorld(world);
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
