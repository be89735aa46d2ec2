/**
 * CPU seconds by process group over a step of a benchmark, from /proc/<pid>/stat (utime + stime) read
 * before and after: what one order costs each part of the machine (API workers, primary, chain roles,
 * Kafka, PostgreSQL, Redis, devnet, the load generator). Linux only; elsewhere it reports nothing.
 *
 * A process is charged to the nearest ancestor (itself included) that a rule names, so the esbuild
 * helpers of a tsx process count with it. Processes that exit during the step are not counted (their
 * ticks are gone with them); shared-stack processes (Kafka, registry, PostgreSQL's background, Redis)
 * also serve whatever else runs on the machine.
 */
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SEC = 100; // getconf CLK_TCK on Linux

export interface Proc {
  ppid: number;
  ticks: number;
  args: string;
}

/** Names a process's group, or null to charge it to its parent's. */
export type Classify = (pid: number, p: Proc) => string | null;

/** User and system CPU ticks (1/100 s) of one process so far, from /proc/<pid>/stat (a PostgreSQL backend, say). */
export function processTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // comm may hold spaces and parentheses: the fields after it start after the last ')'.
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(f[11]) + Number(f[12]);
}

/** What `fn` cost in CPU ms: this process, and one PostgreSQL backend (the connection it works on); with its result. */
export async function cpuAround<T>(backend: number, fn: () => Promise<T>): Promise<{ result: T; nodeMs: number; pgMs: number }> {
  const pg0 = processTicks(backend);
  const cpu0 = process.cpuUsage();
  const result = await fn();
  const cpu = process.cpuUsage(cpu0);
  return { result, nodeMs: (cpu.user + cpu.system) / 1000, pgMs: ((processTicks(backend) - pg0) * 1000) / TICKS_PER_SEC };
}

function readProcs(): Map<number, Proc> {
  const out = new Map<number, Proc>();
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return out;
  }
  for (const d of pids) {
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      // comm may hold spaces and parentheses: the fields after it start after the last ')'.
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const args = readFileSync(`/proc/${d}/cmdline`, 'utf8').replaceAll('\0', ' ');
      out.set(Number(d), { ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]), args });
    } catch {
      // exited meanwhile
    }
  }
  return out;
}

/** Busy and total ticks of the whole machine (/proc/stat's cpu line). */
function machineTicks(): { busy: number; total: number } {
  try {
    const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const total = f.reduce((a, b) => a + b, 0);
    return { busy: total - f[3] - (f[4] ?? 0), total };
  } catch {
    return { busy: 0, total: 0 };
  }
}

export interface CpuSnapshot {
  procs: Map<number, Proc>;
  machine: { busy: number; total: number };
  at: number;
}

export function cpuSnapshot(): CpuSnapshot {
  return { procs: readProcs(), machine: machineTicks(), at: performance.now() };
}

export const DEVNET_GROUP = "devnet (this run's)";
export const WORLD_POSTGRES_GROUP = "postgresql (this world's connections)";

/**
 * The groups every benchmark has besides its own processes: its devnet (a child of the benchmark's process,
 * which would otherwise be charged to it), its world's PostgreSQL connections (`dbName`) and the shared stack.
 * Null: none of these.
 */
export function stackGroup(p: Proc, dbName: string): string | null {
  if (p.ppid === process.pid && p.args.includes('devnet')) return DEVNET_GROUP;
  if (p.args.startsWith('postgres: ')) {
    if (p.args.includes(` ${dbName} `)) return WORLD_POSTGRES_GROUP;
    return /\(\d+\)/.test(p.args) ? 'postgresql (other databases: other runs)' : 'postgresql background (shared)';
  }
  if (p.args.includes('kafka.Kafka')) return 'kafka (shared)';
  if (p.args.includes('apicurio') || p.args.includes('schema-registry')) return 'schema registry (shared)';
  if (p.args.startsWith('redis-server')) return 'redis (shared)';
  return null;
}

/** CPU seconds per group between two snapshots, plus `machine busy` and `not in any group`. */
export function cpuByGroup(before: CpuSnapshot, after: CpuSnapshot, classify: Classify): Map<string, number> {
  const groupOf = (pid: number): string | null => {
    for (let p = pid, hops = 0; p > 1 && hops < 64; hops++) {
      const proc = after.procs.get(p);
      if (!proc) return null;
      const g = classify(p, proc);
      if (g) return g;
      p = proc.ppid;
    }
    return null;
  };
  const out = new Map<string, number>();
  let grouped = 0;
  for (const [pid, p] of after.procs) {
    const g = groupOf(pid);
    if (!g) continue;
    const delta = (p.ticks - (before.procs.get(pid)?.ticks ?? 0)) / TICKS_PER_SEC;
    grouped += delta;
    out.set(g, (out.get(g) ?? 0) + delta);
  }
  const busy = (after.machine.busy - before.machine.busy) / TICKS_PER_SEC;
  out.set('machine busy (all cores)', busy);
  out.set('machine busy, not in a group above', busy - grouped);
  return out;
}

/**
 * Lines `group: X.XX CPU s, Y.YY per 1,000 sent, Z.ZZ per 1,000 ok`, largest first. Per sent is the steadier
 * figure under overload: a request that timed out at the client was still authenticated, appended and applied.
 * With `windowSeconds`, each line also says the group's share of one core over the window.
 */
export function cpuLines(cpu: Map<string, number>, sent: number, okAnswers: number, windowSeconds?: number): string[] {
  const per = (s: number, n: number) => (n > 0 ? ((s * 1000) / n).toFixed(2) : '-');
  const core = (s: number) => (windowSeconds && windowSeconds > 0 ? `, ${((s / windowSeconds) * 100).toFixed(1)} % of a core` : '');
  return [...cpu.entries()]
    .sort((a, b) => b[1] - a[1])
    .map(([g, s]) => `  ${g}: ${s.toFixed(2)} CPU s, ${per(s, sent)} per 1,000 sent, ${per(s, okAnswers)} per 1,000 ok${core(s)}`);
}
