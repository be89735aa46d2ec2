/**
 * OS scheduling priority of a process. Background work (signing and broadcasting delegations, confirming,
 * reconciling, projections, webhooks) must not take the CPU the answer path (API, processor, relay) needs on
 * a busy machine; run in a process of its own, it is niced (BACKGROUND_NICE), so it still gets every idle
 * cycle but yields whenever an answer is being worked on.
 */
import { readdirSync } from 'node:fs';
import os from 'node:os';

/**
 * Raises the nice value of every thread of `pid` to at least `nice` (never lowers it: that needs privileges
 * and would take CPU from others). On Linux nice is per thread and a thread inherits its creator's value at
 * creation: threads that exist already (V8's GC and compiler threads) are reniced one by one, and those
 * created later (libuv's pool, created on first use) inherit it from the main thread. Returns how many
 * threads were changed; a thread that ended meanwhile is skipped.
 */
export function lowerPriority(pid: number, nice: number): number {
  if (nice <= 0) return 0;
  let threads: number[];
  try {
    threads = readdirSync(`/proc/${pid}/task`).map(Number).filter(Number.isSafeInteger);
  } catch {
    threads = [pid]; // no /proc (not Linux): setpriority on the process
  }
  let changed = 0;
  for (const tid of threads) {
    try {
      if (os.getPriority(tid) >= nice) continue;
      os.setPriority(tid, nice);
      changed++;
    } catch {
      // the thread ended between the listing and the call
    }
  }
  return changed;
}
