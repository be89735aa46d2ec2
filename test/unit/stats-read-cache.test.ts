/**
 * The stats read's kept whole parts (services/stats/read-cache.ts), pure: what the key depends on, least
 * recently used entries leaving first, and entries past their age read again.
 */
import { planFor, resolveRange, type StatsRange } from '../../services/stats/account-stats';
import { wholeKey, WholePartCache, type WholePart } from '../../services/stats/read-cache';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 22, 13, 7);
const part = (version: bigint): WholePart => ({ version, days: [], weekdayHours: [], receivers: [] });
const range = (from: number, to: number, utcOffsetMinutes = 0) => resolveRange({ from, to, utcOffsetMinutes }, NOW) as StatsRange;

test('the key follows the whole days of the plan, not the partial ends', () => {
  const key = (r: StatsRange) => wholeKey('acc_1', planFor(r), r.utcOffsetMinutes);
  const base = key(range(NOW - 395 * DAY, NOW));
  // `to` = now moving within the day: the same whole days, the same key.
  expect(key(range(NOW - 395 * DAY + 60_000, NOW + 60_000))).toBe(base);
  expect(key(range(NOW - 394 * DAY, NOW))).not.toBe(base);
  expect(key(range(NOW - 395 * DAY, NOW, 330))).not.toBe(base);
  expect(wholeKey('acc_2', planFor(range(NOW - 395 * DAY, NOW)), 0)).not.toBe(base);
});

test('least recently used entries leave first; an old entry is not offered', () => {
  let now = 0;
  const cache = new WholePartCache(() => now, 2, 1_000);
  cache.set('a', part(1n));
  cache.set('b', part(2n));
  expect(cache.get('a')?.version).toBe(1n);
  cache.set('c', part(3n));
  expect(cache.get('b')).toBeUndefined();
  expect(cache.get('a')?.version).toBe(1n);
  expect(cache.get('c')?.version).toBe(3n);
  now = 1_001;
  expect(cache.get('a')).toBeUndefined();
  cache.set('a', part(4n));
  expect(cache.get('a')?.version).toBe(4n);
  cache.record(true);
  cache.record(false);
  expect([cache.hits, cache.misses]).toEqual([1, 1]);
});
