/** The ops commands' progress (services/platform/progress.ts): figures, text, and what reaches the terminal or a script. */
import { progressFigures, progressReporter, progressText } from '../../services/platform/progress';

test('done/total, percent, rate and time left', () => {
  expect(progressFigures({ label: 'rows', done: 250, total: 1000, elapsedMs: 5000 })).toEqual({ label: 'rows', done: 250, total: 1000, percent: 25, per_second: 50, seconds_left: 15 });
  expect(progressText({ label: 'api_keys rows', done: 250, total: 1000, elapsedMs: 5000 })).toBe('api_keys rows 250/1000 (25 %), 50/s, 15 s left');
  expect(progressText({ label: 'records', done: 1000, total: 1000, elapsedMs: 2000 })).toBe('records 1000/1000 (100 %), 500/s, done');
  expect(progressText({ label: 'records', done: 10, total: 100_000, elapsedMs: 1000 })).toBe('records 10/100000 (0 %), 10/s, 2 h 46 min left');
  // Nothing counted yet, or no total known: only what is known.
  expect(progressText({ label: 'records', done: 0, total: 500, elapsedMs: 0 })).toBe('records 0/500 (0 %)');
  expect(progressText({ label: 'records', done: 7, total: null, elapsedMs: 2000 })).toBe('records 7, 3.5/s');
  expect(progressFigures({ label: 'tables', done: 0, total: 0, elapsedMs: 0 })).toMatchObject({ percent: 100, seconds_left: 0 });
  // A verb and a unit: what restore and rebuild-stats print.
  expect(progressText({ label: 'applied', unit: 'records', done: 30, total: 40, elapsedMs: 3000 })).toBe('applied 30/40 records (75 %), 10/s, 1 s left');
});

function fakeSink(isTTY: boolean) {
  const written: string[] = [];
  return { written, sink: { isTTY, write: (t: string) => void written.push(t) } };
}

test('a terminal gets one rewritten line at most once a second, ended by the phase', () => {
  let now = 0;
  const { written, sink } = fakeSink(true);
  const p = progressReporter({ json: false, sink, now: () => now });
  p.start('rows', 4);
  p.advance(); // at 0 ms: too soon
  now = 1000;
  p.advance();
  now = 1500;
  p.advance();
  now = 2000;
  p.advance();
  p.finish();
  expect(written).toEqual(['\r\x1b[2Krows 2/4 (50 %), 2/s, 1 s left', '\r\x1b[2Krows 4/4 (100 %), 2/s, done', '\n']);
});

test('a pipe gets whole lines; --json gets one object per report and notes, nothing on stdout', () => {
  let now = 0;
  const plain = fakeSink(false);
  const p = progressReporter({ json: false, sink: plain.sink, now: () => now });
  p.note('live snapshot taken');
  p.start('tables', 2);
  now = 1000;
  p.advance(2);
  p.finish();
  expect(plain.written).toEqual(['live snapshot taken\n', 'tables 2/2 (100 %), 2/s, done\n']);

  const json = fakeSink(true);
  const j = progressReporter({ json: true, sink: json.sink, now: () => now });
  j.note('hello');
  j.start('rows', 10);
  now = 3000;
  j.advance(5);
  j.finish();
  expect(json.written.map((l) => JSON.parse(l))).toEqual([
    { note: 'hello' },
    { progress: { label: 'rows', done: 5, total: 10, percent: 50, per_second: 2.5, seconds_left: 2 } },
  ]);
});
