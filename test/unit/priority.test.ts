import { spawn } from 'node:child_process';
import os from 'node:os';
import { readdirSync } from 'node:fs';
import { lowerPriority } from '../../services/platform/priority';

const taskIds = (pid: number): number[] => readdirSync(`/proc/${pid}/task`).map(Number);

async function settledThreads(pid: number): Promise<number[]> {
  let last = taskIds(pid);
  for (let i = 0; i < 100; i++) {
    await new Promise((r) => setTimeout(r, 50));
    const now = taskIds(pid);
    if (now.length > 1 && now.length === last.length) return now;
    last = now;
  }
  return last;
}

describe('lowerPriority: every thread of a process, never raised', () => {
  test('a node child with its threads ends at the nice value; a second, lower value changes nothing', async () => {
    const child = spawn(process.execPath, ['-e', "process.stdout.write('ready'); setTimeout(() => undefined, 30000)"], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      // The child runs its script once V8 is up; its threads are then listed until two reads agree (a fixed
      // 300 ms wait was too short on a loaded machine: one thread listed).
      await new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()));
      const threads = await settledThreads(child.pid!);
      expect(threads.length).toBeGreaterThan(1);
      expect(lowerPriority(child.pid!, 7)).toBe(threads.length);
      for (const tid of threads) expect(os.getPriority(tid)).toBe(7);
      expect(lowerPriority(child.pid!, 3)).toBe(0);
      expect(os.getPriority(child.pid!)).toBe(7);
      expect(lowerPriority(child.pid!, 0)).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
