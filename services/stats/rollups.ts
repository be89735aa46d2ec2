/**
 * The shapes of the stats rollups, as pure arithmetic. Every real UTC offset is a whole number of
 * quarter-hours (+330 India, +345 Nepal, -210 Newfoundland), so a quarter-hour is the finest bucket the
 * rollups keep; what each rollup is for:
 *
 * - days (stats_days): one row per account and UTC day holding prefix sums over its quarter-hours
 *   (orders, energy and spent of quarters [0, k) for k = 1..96). At offset `o` a local day is the tail of
 *   one UTC day and the head of the next, split at the same quarter `m` every day; the head is column m
 *   and the tail the whole day minus it, so a 13-month series reads ~400 rows whatever the offset. A
 *   batch of events moves one row per account and day it touches (before: eight block rows and a grid row).
 * - grid (stats_grid_monthly): orders per quarter-hour of the UTC day per (month, UTC weekday), as 96
 *   columns of one row; weekday x hour at any quarter offset is a shift of these (a quarter never
 *   straddles a local hour). 13 months are ~90 monthly rows; the days of the partial months at the ends
 *   come from stats_days (orders per quarter as differences of its prefix columns).
 */
export const MINUTE_MS = 60_000;
export const QUARTER_MS = 15 * MINUTE_MS;
export const DAY_MS = 86_400_000;
export const QUARTERS_PER_DAY = 96;

export const dayStart = (ms: number) => Math.floor(ms / DAY_MS) * DAY_MS;
/** Quarter-hour of the UTC day, 0..95. */
export const quarterOfDay = (ms: number) => Math.floor((ms - dayStart(ms)) / QUARTER_MS);
/** Start of the UTC calendar month. */
export function monthStart(ms: number): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}
/** Start of the UTC calendar month after the one holding `ms`. */
export function nextMonthStart(ms: number): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}
/** ISO weekday index (Monday 0) of the UTC day holding `ms`; 1970-01-01 was a Thursday. */
export const utcWeekday = (ms: number) => (((Math.floor(ms / DAY_MS) + 3) % 7) + 7) % 7;

/** Whether rollups can answer at this offset (a whole number of quarter-hours). */
export const quarterAligned = (offsetMinutes: number) => offsetMinutes % 15 === 0;

/**
 * Where local days start inside a UTC day, in quarter-hours (0..95): the UTC time of day that is local
 * midnight at `offsetMinutes`.
 */
export function splitQuarter(offsetMinutes: number): number {
  return ((((-offsetMinutes / 15) % QUARTERS_PER_DAY) + QUARTERS_PER_DAY) % QUARTERS_PER_DAY);
}

/** Local (weekday Monday 0, hour) of a quarter-hour of a UTC day whose weekday is `weekday`, at a quarter offset. */
export function localCell(weekday: number, quarter: number, offsetMinutes: number): { weekday: number; hour: number } {
  const week = 7 * 24 * 60;
  const minute = ((((weekday * 24 * 60 + quarter * 15 + offsetMinutes) % week) + week) % week);
  return { weekday: Math.floor(minute / (24 * 60)), hour: Math.floor((minute % (24 * 60)) / 60) };
}
