/**
 * CPU of an idle world: one `--roles all` service process on a fresh world, nothing to do, its own CPU and
 * the broker's over a quiet span (what every integration file's services cost while their test waits).
 * IDLE_MS (20,000) the span; set KAFKA_FETCH_MAX_WAIT_MS etc. in the environment to compare settings.
 */
import fs from 'node:fs';
import { randomUUID } from 'node:crypto';
import { newWorld, openRuntime, openBus, dropWorld } from '../test/support/world';
import { startService } from '../test/support/service-process';

const TICK_MS = 10;
function cpuOf(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * TICK_MS;
}
function pidOf(pattern: RegExp): number | undefined {
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      if (pattern.test(fs.readFileSync(`/proc/${d}/cmdline`, 'utf8'))) return Number(d);
    } catch { /* gone */ }
  }
  return undefined;
}

async function main() {
  const idleMs = Number(process.env.IDLE_MS ?? 20_000);
  const world = newWorld('idleworld');
  const rt = await openRuntime(world);
  const svc = startService(world, process.env.IDLE_ROLES ?? 'all');
  await svc.ready;
  await new Promise((r) => setTimeout(r, 5_000));
  const kafka = pidOf(/kafka\.Kafka/);
  const pid = svc.child.pid!;
  const k0 = kafka ? cpuOf(kafka) : 0, s0 = cpuOf(pid), t0 = Date.now();
  await new Promise((r) => setTimeout(r, idleMs));
  const k1 = kafka ? cpuOf(kafka) : 0, s1 = cpuOf(pid), secs = (Date.now() - t0) / 1000;
  console.log(JSON.stringify({ fetchMaxWait: world.env.KAFKA_FETCH_MAX_WAIT_MS ?? 'default', secs, serviceCpuMsPerS: Math.round((s1 - s0) / secs), kafkaCpuMsPerS: Math.round((k1 - k0) / secs), load: fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ') }));
  // Then the round trip of a command through the service's processor, one at a time: what the wait costs.
  const bus = await openBus(rt);
  const ms: number[] = [];
  for (let i = 0; i < Number(process.env.IDLE_COMMANDS ?? 40); i++) {
    const t = performance.now();
    await bus.submit({ type: 'balance.adjust', accountId: randomUUID(), amountSun: 1n, memo: 'idle-world' } as any);
    ms.push(performance.now() - t);
    await new Promise((r) => setTimeout(r, 50));
  }
  ms.sort((a, b) => a - b);
  console.log(JSON.stringify({ roundTripMs: { p50: Math.round(ms[ms.length >> 1]), p90: Math.round(ms[Math.floor(ms.length * 0.9)]), max: Math.round(ms[ms.length - 1]) } }));
  await bus.stop();
  await svc.kill();
  await rt.close();
  await dropWorld(world);
}
main().then(() => process.exit(0), (err) => { console.error(err); process.exit(1); });
