/**
 * The fixed cost of a test world (test/support/world.ts), the setup and teardown every integration file pays:
 * open (database from the migrated template, runtime, command bus) and drop (replay check, topics, database).
 * Runs ROUNDS rounds; each round opens and drops one world the old way (A: the runtime migrates the copied
 * database again, the replay database is migrated from nothing, both dropped right away) and one the current
 * way (B: neither migrate, both databases retired and dropped at the end, retired-databases.ts), so both see
 * the same machine. Prints per variant the median wall time and CPU of this process, and the CPU the PostgreSQL
 * server (postmaster and backends, reaped ones included) and the Kafka broker used meanwhile (other work on
 * the machine lands there too: read medians, and run on a quiet machine for exact figures).
 *
 *   infra/env/load.sh test -- npx tsx bench/world-setup.ts [ROUNDS]
 */
import fs from 'node:fs';
import { createRuntime } from '../services/runtime';
import { replayAndVerify } from '../services/ops/replay';
import { dropDatabase } from '../services/platform/db/databases';
import { dropWorld, newWorld, openBus, openRuntime, templateReplay } from '../test/support/world';
import { dropRetired, RETIRE_ENV } from '../test/support/retired-databases';

const ticks = 100; // USER_HZ on Linux

/** utime+stime (+ reaped children's) in ms of every process whose command line matches. */
function cpuOf(match: (cmdline: string, comm: string) => boolean): number {
  let total = 0;
  for (const pid of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      if (!match(cmdline, comm)) continue;
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      total += (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * (1000 / ticks);
    } catch {
      // gone meanwhile
    }
  }
  return total;
}
const pgCpu = () => cpuOf((_, comm) => comm === 'postgres');
const kafkaCpu = () => cpuOf((cmd) => cmd.includes('java') && /kafka\.Kafka|kafka-server|server\.properties/.test(cmd));

interface Sample {
  openMs: number;
  dropMs: number;
  selfCpuMs: number;
  pgCpuMs: number;
  kafkaCpuMs: number;
}

async function oneWorld(variant: 'A' | 'B'): Promise<Sample> {
  const cpu0 = process.cpuUsage();
  const pg0 = pgCpu();
  const kafka0 = kafkaCpu();
  const t0 = performance.now();
  const world = newWorld(`worldsetup${variant.toLowerCase()}`);
  if (variant === 'B') process.env[RETIRE_ENV] = '1';
  else delete process.env[RETIRE_ENV];
  let rt;
  if (variant === 'B') rt = await openRuntime(world);
  else {
    await templateReplay.replayDatabase!.prepare(world.cfg.DATABASE_URL); // the copy from the template
    rt = await createRuntime(world.cfg); // and the migrate the runtime ran on it before
  }
  const bus = await openBus(rt);
  const t1 = performance.now();
  await bus.stop();
  if (variant === 'B') await dropWorld(world, rt);
  else {
    const report = await replayAndVerify(rt);
    if (!report.identical) throw new Error('replay differs');
    await rt.log.deleteTopics(Object.values(rt.codec.topics).map((t) => t.topic)).catch(() => undefined);
    await dropDatabase(world.cfg.DATABASE_URL);
  }
  await rt.close();
  const t2 = performance.now();
  const cpu = process.cpuUsage(cpu0);
  return { openMs: t1 - t0, dropMs: t2 - t1, selfCpuMs: (cpu.user + cpu.system) / 1000, pgCpuMs: pgCpu() - pg0, kafkaCpuMs: kafkaCpu() - kafka0 };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const rounds = Number(process.argv[2] ?? 5);
  await oneWorld('B'); // builds the template, warms the modules
  const samples: Record<'A' | 'B', Sample[]> = { A: [], B: [] };
  for (let i = 0; i < rounds; i++) {
    for (const v of i % 2 === 0 ? (['A', 'B'] as const) : (['B', 'A'] as const)) samples[v].push(await oneWorld(v));
  }
  // B's databases, retired as under jest, dropped as global-teardown.ts does: its cost shared out per world.
  const cpu0 = process.cpuUsage();
  const pg0 = pgCpu();
  const t0 = performance.now();
  const dropped = await dropRetired(process.env.DATABASE_URL!);
  const cpu = process.cpuUsage(cpu0);
  const per = (x: number) => (x / Math.max(1, rounds + 1)).toFixed(0);
  console.log(
    `world setup + teardown, median of ${rounds} rounds (A: the runtime migrates the template's copy, the replay database is migrated from nothing, both databases dropped right away; B: neither migrate, both retired)`,
  );
  console.log(
    `B's final drop of ${dropped} retired databases: ${(performance.now() - t0).toFixed(0)} ms wall, per world ${per((cpu.user + cpu.system) / 1000)} ms self CPU, ${per(pgCpu() - pg0)} ms PostgreSQL CPU`,
  );
  console.log('variant   open ms   drop ms   self CPU ms   PostgreSQL CPU ms   Kafka CPU ms');
  for (const v of ['A', 'B'] as const) {
    const s = samples[v];
    const m = (k: keyof Sample) => median(s.map((x) => x[k])).toFixed(0).padStart(8);
    console.log(`${v}        ${m('openMs')}  ${m('dropMs')}      ${m('selfCpuMs')}            ${m('pgCpuMs')}       ${m('kafkaCpuMs')}`);
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
