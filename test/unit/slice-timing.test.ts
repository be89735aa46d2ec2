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
