/** bench/proc-cpu.ts: CPU seconds by process group, a child charged to its nearest named ancestor. */
import { cpuByGroup, cpuLines, cpuSnapshot, type CpuSnapshot, type Proc } from '../../bench/proc-cpu';

function snap(procs: Record<number, Proc>, busy: number): CpuSnapshot {
  return { procs: new Map(Object.entries(procs).map(([pid, p]) => [Number(pid), p])), machine: { busy, total: busy * 2 }, at: 0 };
}

test('ticks between snapshots by group; children go to the named ancestor; new processes count whole', () => {
  const before = snap({
    10: { ppid: 1, ticks: 100, args: 'node services/main.ts' },
    11: { ppid: 10, ticks: 50, args: 'node services/main.ts' },
    12: { ppid: 10, ticks: 5, args: 'esbuild --service' },
    20: { ppid: 1, ticks: 7, args: 'redis-server 127.0.0.1:6379' },
  }, 1_000);
  const after = snap({
    10: { ppid: 1, ticks: 300, args: 'node services/main.ts' },
    11: { ppid: 10, ticks: 150, args: 'node services/main.ts' },
    12: { ppid: 10, ticks: 25, args: 'esbuild --service' },
    13: { ppid: 11, ticks: 40, args: 'esbuild --service' },
    20: { ppid: 1, ticks: 9, args: 'redis-server 127.0.0.1:6379' },
    30: { ppid: 1, ticks: 999, args: 'unrelated' },
  }, 1_600);
  const cpu = cpuByGroup(before, after, (pid, p) =>
    pid === 10 ? 'primary' : p.ppid === 10 && p.args.includes('main.ts') ? 'worker' : p.args.startsWith('redis') ? 'redis' : null);
  expect(cpu.get('primary')).toBeCloseTo(2.2); // 200 own + 20 of its esbuild child
  expect(cpu.get('worker')).toBeCloseTo(1.4); // 100 own + 40 of a child born in between
  expect(cpu.get('redis')).toBeCloseTo(0.02);
  expect(cpu.get('machine busy (all cores)')).toBeCloseTo(6);
  expect(cpu.get('machine busy, not in a group above')).toBeCloseTo(6 - 3.62);
  expect(cpuLines(cpu, 3_000, 2_000)[0]).toBe('  machine busy (all cores): 6.00 CPU s, 2.00 per 1,000 sent, 3.00 per 1,000 ok');
});

test('a real snapshot sees this process', () => {
  const s = cpuSnapshot();
  if (process.platform === 'linux') expect(s.procs.get(process.pid)?.ticks).toBeGreaterThanOrEqual(0);
});
