/** GET /v1/account/stats ranges are bounded (issue 31, item 1): `to` at most a day ahead, span at most the retention. */
import { MAX_TO_AHEAD_MS, monthsBefore, resolveRange, RETENTION_MONTHS, toOutOfRange, type StatsRange } from '../../../services/stats/account-stats';

const now = Date.parse('2026-12-01T21:00:00Z');

test('a `to` more than a day after now is refused; a day is allowed, and no `to` at all', () => {
  expect(toOutOfRange({ from: Date.parse('2000-01-01T00:00:00Z'), to: Date.parse('9999-12-31T00:00:00Z') }, now)).toBe(true);
  expect(toOutOfRange({ to: now + MAX_TO_AHEAD_MS + 1 }, now)).toBe(true);
  expect(toOutOfRange({ to: now + MAX_TO_AHEAD_MS }, now)).toBe(false);
  expect(toOutOfRange({}, now)).toBe(false);
});

test('whatever is asked within that, an answered range spans at most the retention and a day', () => {
  const range = resolveRange({ from: Date.parse('0001-01-01T00:00:00Z'), to: now + MAX_TO_AHEAD_MS }, now) as StatsRange;
  expect(range.clamped).toBe(true);
  expect(range.to - range.from).toBe(now - monthsBefore(now, RETENTION_MONTHS) + MAX_TO_AHEAD_MS);
});
