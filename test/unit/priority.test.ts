import { spawn } from 'node:child_process';
import os from 'node:os';
import { readdirSync } from 'node:fs';
import { lowerPriority } from '../../services/platform/priority';

describe('lowerPriority: every thread of a process, never raised', () => {
  test('a node child with its threads ends at the nice value; a second, lower value changes nothing', async () => {
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => undefined, 30000)'], { stdio: 'ignore' });
    try {
      await new Promise((r) => setTimeout(r, 300)); // let V8 start its threads
      const threads = readdirSync(`/proc/${child.pid}/task`).map(Number);
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
