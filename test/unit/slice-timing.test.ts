import { SliceTimings } from '../../services/platform/slice-timing';

describe('SliceTimings: p50/p99/max per stage since the last report, then starts over', () => {
  test('one line with every stage seen; empty after a report', () => {
    const t = new SliceTimings();
    for (let i = 1; i <= 100; i++) {
      t.add('records', i);
      t.add('apply', i / 10);
    }
    t.add('commit', 250);
    const line = t.report('processor');
    expect(line).toMatch(/^processor slices over \d+\.\d s: 100; p50\/p99\/max /);
    expect(line).toContain('records 51.0/100/100');
    expect(line).toContain('apply 5.1/10.0/10.0 ms');
    expect(line).toContain('commit 250/250/250 ms');
    expect(line).not.toContain('queued');
    expect(t.report('processor')).toMatch(/slices over \d+\.\d s: 0; p50\/p99\/max $/);
  });
});

describe('SIGUSR2 in every process (registerReport, onReportSignal)', () => {
  test('prints the registered reports, or says there is none; unregistering removes one', () => {
    const { registerReport, reportLines } = jest.requireActual('../../services/platform/slice-timing') as typeof import('../../services/platform/slice-timing');
    expect(reportLines('roles api')).toMatch(/^roles api \(pid \d+\): no timings kept in this process\n$/);
    const off = registerReport('processor', () => 'processor slices over 1.0 s: 3');
    expect(reportLines('roles processor')).toBe('processor slices over 1.0 s: 3\n');
    off();
    expect(reportLines('roles processor')).toContain('no timings kept');
  });

  test('a process with no processor survives SIGUSR2 and prints a line (it was killed before)', async () => {
    const { spawn } = await import('node:child_process');
    const path = await import('node:path');
    const script = `
      const { onReportSignal } = require(${JSON.stringify(path.resolve(__dirname, '../../services/platform/slice-timing.ts'))});
      onReportSignal('roles broadcaster,confirmer');
      process.kill(process.pid, 'SIGUSR2');
      setTimeout(() => process.stdout.write('alive'), 200);`;
    const child = spawn(process.execPath, ['--import', 'tsx', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d));
    child.stderr.on('data', (d: Buffer) => (err += d));
    const [code, signal] = await new Promise<[number | null, string | null]>((r) => child.on('exit', (c, s) => r([c, s])));
    expect({ code, signal, out }).toEqual({ code: 0, signal: null, out: 'alive' });
    expect(err).toMatch(/roles broadcaster,confirmer \(pid \d+\): no timings kept in this process/);
  }, 30_000);
});
