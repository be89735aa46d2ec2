/**
 * The shapes of the stats rollups, as pure arithmetic. Every real UTC offset is a whole number of
 * quarter-hours (+330 India, +345 Nepal, -210 Newfoundland), so a quarter-hour is the finest bucket the
 * rollups keep; what each rollup is for:
 *
 * - day blocks (stats_day_blocks): per account and UTC day, the day's sums and the sums of its aligned
 *   power-of-two runs of quarter-hours (64, 32, ..., 1). At offset `o` a local day is the tail of one UTC
 *   day and the head of the next, split at the same quarter `m` every day; [0, m) or [m, 96) is a union of
 *   at most a handful of aligned runs, so a 13-month series reads ~400 day rows plus a few rows per day,
 *   never the ~38,000 quarter-hours.
 * - grid (stats_grid_daily, stats_grid_monthly): orders per quarter-hour of the UTC day, per day and per
 *   (month, UTC weekday), as 96 columns of one row; weekday x hour at any quarter offset is a shift of these
 *   (a quarter never straddles a local hour), and 13 months are ~90 monthly rows plus the days of the
 *   partial months at the ends.
 */
export const MINUTE_MS = 60_000;
export const QUARTER_MS = 15 * MINUTE_MS;
export const DAY_MS = 86_400_000;
export const QUARTERS_PER_DAY = 96;
/** Block sizes in quarter-hours; 96 is the whole day (block 0). */
export const BLOCK_SIZES = [96, 64, 32, 16, 8, 4, 2, 1] as const;

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

export interface Block {
  size: number;
  block: number;
}

/** [a, b) of quarter-hours (0 <= a <= b <= 96) as the fewest aligned power-of-two blocks (greedy from a). */
export function alignedCover(a: number, b: number): Block[] {
  const out: Block[] = [];
  let at = a;
  while (at < b) {
    const size = BLOCK_SIZES.slice(1).find((s) => at % s === 0 && at + s <= b) as number;
    out.push({ size, block: at / size });
    at += size;
  }
  return out;
}

/**
 * The blocks to read for one side of the split at `m` (0 < m < 96): the head [0, m) or, when fewer
 * blocks cover it, the tail [m, 96) (then head = day - tail).
 */
export function splitCover(m: number): { side: 'head' | 'tail'; blocks: Block[] } {
  const head = alignedCover(0, m);
  const tail = alignedCover(m, QUARTERS_PER_DAY);
  return tail.length < head.length ? { side: 'tail', blocks: tail } : { side: 'head', blocks: head };
}

/** Local (weekday Monday 0, hour) of a quarter-hour of a UTC day whose weekday is `weekday`, at a quarter offset. */
export function localCell(weekday: number, quarter: number, offsetMinutes: number): { weekday: number; hour: number } {
  const week = 7 * 24 * 60;
  const minute = ((((weekday * 24 * 60 + quarter * 15 + offsetMinutes) % week) + week) % week);
  return { weekday: Math.floor(minute / (24 * 60)), hour: Math.floor((minute % (24 * 60)) / 60) };
}
