/**
 * Append latency of the command bus's batcher, sequential (one command at a time, as a lone client or a
 * moderate rate sees it): time from append to the broker's acknowledgement, with the linger only
 * (COMMAND_IDLE_FLUSH=0's behaviour) and with idle flush, taking turns. Run against the test stack:
 *   infra/env/load.sh test -- npx tsx bench/append-linger.ts
 * Knobs: BENCH_APPENDS (per turn, 300), BENCH_TURNS (3 per variant), BENCH_LINGER_MS (the config's COMMAND_LINGER_MS),
 *   BENCH_IDLE_FIRST=1 (idle flush takes the first turn of each pair).
 */
import os from 'node:os';
import { AppendBatcher } from '../services/platform/append-batcher';
import { createRuntime } from '../services/runtime';
import { dropWorld, newWorld } from '../test/support/world';
import { percentile, sorted } from './figures';

const APPENDS = Number(process.env.BENCH_APPENDS ?? 300);
const TURNS = Number(process.env.BENCH_TURNS ?? 3);

async function main(): Promise<void> {
  const world = newWorld('benchappend', { LOG_LEVEL: 'error' });
  const rt = await createRuntime(world.cfg);
  const lingerMs = Number(process.env.BENCH_LINGER_MS ?? rt.cfg.COMMAND_LINGER_MS);
  const topic = rt.codec.topicName('accountCommands');
  const value = Buffer.alloc(600, 1);
  try {
    for (let turn = 0; turn < TURNS * 2; turn++) {
      const idleFlush = turn % 2 === (process.env.BENCH_IDLE_FIRST === "1" ? 0 : 1);
      const batcher = new AppendBatcher({ lingerMs, maxRecords: 500, idleFlush, send: (records) => rt.log.send(topic, records) });
      const ms: number[] = [];
      const cpu = process.cpuUsage();
      for (let i = 0; i < APPENDS; i++) {
        const started = performance.now();
        await batcher.append([{ key: Buffer.from(`acc_${i % 7}`), value }]);
        ms.push(performance.now() - started);
      }
      const used = process.cpuUsage(cpu);
      const s = sorted(ms);
      console.log(`${idleFlush ? 'idle flush' : `linger ${lingerMs} ms`}: append p50 ${percentile(s, 50).toFixed(2)} / p99 ${percentile(s, 99).toFixed(2)} ms, CPU ${((used.user + used.system) / 1000 / APPENDS).toFixed(3)} ms per append (${APPENDS} sequential, load ${os.loadavg()[0].toFixed(1)})`);
    }
  } finally {
    await dropWorld(world, rt).catch((err) => console.error(`teardown: ${(err as Error).message}`));
    await rt.close();
  }
}

main().then(() => process.exit(0), (err) => {
  console.error(err);
  process.exit(1);
});
