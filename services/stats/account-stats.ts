/**
 * GET /v1/account/stats as pure functions: the range actually used (defaults, 2001, 13-month clamp), the
 * plan of which stored aggregates cover which part of it, and the AccountStats answer assembled from them.
 * Days and hours are UTC shifted by utc_offset_minutes; the range covers orders created in [from, to).
 */
import type { Sums } from './projection';
import { dayStart, localCell, monthStart, nextMonthStart, quarterAligned, QUARTER_MS, splitQuarter } from './rollups';

export const RETENTION_MONTHS = 13;
export const DEFAULT_RANGE_DAYS = 30;
export const TOP_RECEIVERS = 10;
const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

export interface StatsRequest {
  from?: number;
  to?: number;
  utcOffsetMinutes?: number;
}

export interface StatsRange {
  from: number;
  to: number;
  requestedFrom: number;
  clamped: boolean;
  utcOffsetMinutes: number;
}

/** `now` minus whole calendar months (UTC), the day clamped to the target month's length. */
export function monthsBefore(now: number, months: number): number {
  const d = new Date(now);
  const target = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - months, 1));
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(d.getUTCDate(), lastDay));
  return target.getTime() + (now - Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
}

/**
 * How far past now `to` may reach: one day, room for any client's clock and local day. With `from` clamped
 * to the retention, an answer spans at most 13 months and a day whatever is asked; an unbounded `to`
 * (year 9999) built millions of day rows in one request (docs/security.md).
 */
export const MAX_TO_AHEAD_MS = DAY_MS;

/** True when the asked `to` is past what resolveRange may answer (400 2000 on `to`, before any read). */
export function toOutOfRange(req: StatsRequest, now: number): boolean {
  return req.to !== undefined && req.to > now + MAX_TO_AHEAD_MS;
}

/** The range to answer, or 'invalid_range' (2001) when `to` is not after `from`. */
export function resolveRange(req: StatsRequest, now: number): StatsRange | 'invalid_range' {
  const to = req.to ?? now;
  const requestedFrom = req.from ?? to - DEFAULT_RANGE_DAYS * DAY_MS;
  if (to <= requestedFrom) return 'invalid_range';
  const retentionStart = monthsBefore(now, RETENTION_MONTHS);
  const clamped = requestedFrom < retentionStart;
  return { from: clamped ? retentionStart : requestedFrom, to, requestedFrom, clamped, utcOffsetMinutes: req.utcOffsetMinutes ?? 0 };
}

const ceilTo = (ms: number, unit: number) => Math.ceil(ms / unit) * unit;
type Span = [number, number];
const span = (a: number, b: number): Span | null => (a < b ? [a, b] : null);
/** [from, to) minus an inner span, as the (at most two) spans left at its ends. */
function outside(range: Span, inner: Span | null): Span[] {
  if (!inner) return span(range[0], range[1]) ? [range] : [];
  return [span(range[0], inner[0]), span(inner[1], range[1])].filter((s): s is Span => s !== null);
}
/** Whole UTC months inside whole UTC days [a, b), and the days left at either end. */
function monthsIn(days: Span): { months: Span | null; days: Span[] } {
  const first = monthStart(days[0]) === days[0] ? days[0] : nextMonthStart(days[0]);
  const months = span(first, monthStart(days[1]));
  return { months, days: outside(days, months) };
}

/**
 * Which stored rows answer which part of the range. Whole UTC days inside it come from the rollups
 * (services/stats/rollups.ts) when the offset is a whole number of quarter-hours: the series from day
 * rows (the whole day, and its head up to the `split` quarter), weekday x hour from the grid (monthly
 * rows for whole months, the day rows' quarters for the other days). Top receivers come from receiver
 * months and days whatever the offset. Per-order rows answer the rest: the partial days at the ends, or
 * the whole range at an offset that is not quarter-aligned (exact, and slower).
 */
export interface StatsPlan {
  days: Span | null;
  /** Where local days start inside each UTC day (quarter 1..95), when not at midnight. */
  split: { quarter: number } | null;
  gridMonths: Span | null;
  gridDays: Span[];
  /** Per-order rows feeding the series and weekday x hour: the range minus `days`. */
  timelineSpans: Span[];
  receiverMonths: Span | null;
  receiverDays: Span[];
  /** Per-order rows feeding top receivers: the range minus its whole days. */
  receiverSpans: Span[];
}

export function planFor(range: StatsRange): StatsPlan {
  const { from, to, utcOffsetMinutes } = range;
  const whole = span(ceilTo(from, DAY_MS), dayStart(to));
  const receivers = whole ? monthsIn(whole) : { months: null, days: [] };
  const days = quarterAligned(utcOffsetMinutes) ? whole : null;
  const grid = days ? monthsIn(days) : { months: null, days: [] };
  const quarter = splitQuarter(utcOffsetMinutes);
  return {
    days,
    split: days && quarter > 0 ? { quarter } : null,
    gridMonths: grid.months,
    gridDays: grid.days,
    timelineSpans: outside([from, to], days),
    receiverMonths: receivers.months,
    receiverDays: receivers.days,
    receiverSpans: outside([from, to], whole),
  };
}

/** Sums per local day (days since 1970-01-01 in local time). */
export interface DaySums extends Sums {
  day: number;
}

/** Order count per ISO weekday index (Monday 0) and local hour. */
export interface WeekdayHourCount {
  weekday: number;
  hour: number;
  orders: bigint;
}

export interface ReceiverSums extends Sums {
  receiver: string;
}

/** What the store reads for a plan, already grouped by local day, weekday x hour and receiver. */
export interface StatsInput {
  days: DaySums[];
  weekdayHours: WeekdayHourCount[];
  receivers: ReceiverSums[];
}

export function localDay(at: number, offsetMinutes: number): number {
  return Math.floor((at + offsetMinutes * MINUTE_MS) / DAY_MS);
}

/** round(priceEnergy * 65,000 / energy), half up, in integers; null without energy. */
export function avgPricePer65k(priceEnergy: bigint, energy: bigint): bigint | null {
  if (energy <= 0n) return null;
  return (2n * priceEnergy * 65_000n + energy) / (2n * energy);
}

/**
 * A UTC day's row of the series read: the day's sums and those of its head, the quarters before the plan's
 * split. The price weight is kept per whole day only (it feeds the totals, never the series), so the
 * head's priceEnergy is 0 and the tail carries the day's.
 */
export interface DayRow {
  day: number;
  total: Sums;
  part: Sums;
}

const minus = (a: Sums, b: Sums): Sums => ({ orders: a.orders - b.orders, energy: a.energy - b.energy, spentSun: a.spentSun - b.spentSun, priceEnergy: a.priceEnergy - b.priceEnergy });

/**
 * UTC days to local days: at a quarter offset each UTC day is the tail of one local day (before the split
 * quarter) and the head of the next; without a split a UTC day is one local day.
 */
export function localDaysOf(rows: DayRow[], split: StatsPlan['split'], offsetMinutes: number): DaySums[] {
  const out: DaySums[] = [];
  for (const r of rows) {
    if (!split) {
      out.push({ day: localDay(r.day, offsetMinutes), ...r.total });
      continue;
    }
    out.push({ day: localDay(r.day, offsetMinutes), ...r.part });
    out.push({ day: localDay(r.day + split.quarter * QUARTER_MS, offsetMinutes), ...minus(r.total, r.part) });
  }
  return out;
}

/** Grid rows (orders per UTC quarter-hour of days of one UTC weekday) to local weekday x hour counts. */
export function localCellsOf(rows: Array<{ weekday: number; quarters: number[] }>, offsetMinutes: number): WeekdayHourCount[] {
  const out: WeekdayHourCount[] = [];
  for (const r of rows) {
    r.quarters.forEach((n, q) => {
      if (n !== 0) out.push({ ...localCell(r.weekday, q, offsetMinutes), orders: BigInt(n) });
    });
  }
  return out;
}

const isoDate = (dayNumber: number) => new Date(dayNumber * DAY_MS).toISOString().slice(0, 10);

export function accountStats(range: StatsRange, input: StatsInput): Record<string, unknown> {
  const offset = range.utcOffsetMinutes;
  const firstDay = localDay(range.from, offset);
  const lastDay = range.to > range.from ? localDay(range.to - 1, offset) : firstDay - 1;
  const series = Array.from({ length: Math.max(0, lastDay - firstDay + 1) }, (_, i) => ({ day: firstDay + i, orders: 0n, energy: 0n, spentSun: 0n }));
  const totals = { orders: 0n, energy: 0n, spentSun: 0n, priceEnergy: 0n };
  for (const d of input.days) {
    const row = series[d.day - firstDay];
    if (row) {
      row.orders += d.orders;
      row.energy += d.energy;
      row.spentSun += d.spentSun;
    }
    totals.orders += d.orders;
    totals.energy += d.energy;
    totals.spentSun += d.spentSun;
    totals.priceEnergy += d.priceEnergy;
  }
  const weekdayHour = Array.from({ length: 7 }, () => new Array<number>(24).fill(0));
  for (const w of input.weekdayHours) weekdayHour[w.weekday][w.hour] += Number(w.orders);

  const receivers = new Map<string, ReceiverSums>();
  for (const r of input.receivers) {
    const sum = receivers.get(r.receiver) ?? { receiver: r.receiver, orders: 0n, energy: 0n, spentSun: 0n, priceEnergy: 0n };
    sum.orders += r.orders;
    sum.energy += r.energy;
    sum.spentSun += r.spentSun;
    receivers.set(r.receiver, sum);
  }
  // Most orders first; ties by energy, then spent, then address so the order is stable.
  const top = [...receivers.values()]
    .filter((r) => r.orders > 0n)
    .sort((a, b) => Number(b.orders - a.orders) || Number(b.energy - a.energy) || Number(b.spentSun - a.spentSun) || (a.receiver < b.receiver ? -1 : 1))
    .slice(0, TOP_RECEIVERS);

  return {
    from: new Date(range.from).toISOString(),
    to: new Date(range.to).toISOString(),
    requested_from: new Date(range.requestedFrom).toISOString(),
    clamped: range.clamped,
    retention_months: RETENTION_MONTHS,
    bucket: 'day',
    utc_offset_minutes: offset,
    totals: {
      orders: Number(totals.orders), energy: Number(totals.energy), spent_sun: totals.spentSun,
      avg_price_sun_per_65k: ((v) => (v === null ? null : Number(v)))(avgPricePer65k(totals.priceEnergy, totals.energy)),
    },
    series: series.map((r) => ({ date: isoDate(r.day), orders: Number(r.orders), energy: Number(r.energy), spent_sun: r.spentSun })),
    weekday_hour: weekdayHour,
    top_receivers: top.map((r) => ({ receiver: r.receiver, orders: Number(r.orders), energy: Number(r.energy), spent_sun: r.spentSun })),
  };
}
