/**
 * GET /v1/account/stats as pure functions: the range actually used (defaults, 2001, 13-month clamp), the
 * plan of which stored aggregates cover which part of it, and the AccountStats answer assembled from them.
 * Days and hours are UTC shifted by utc_offset_minutes; the range covers orders created in [from, to).
 */
import { dayOf, hourOf, type Sums } from './projection';

export const RETENTION_MONTHS = 13;
export const DEFAULT_RANGE_DAYS = 30;
export const TOP_RECEIVERS = 10;
const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
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

/**
 * Which stored rows answer which part of the range: hour buckets where a whole UTC hour lies inside it
 * and maps onto one local hour (the offset is whole hours), receiver-day buckets for whole UTC days, and
 * per-order rows for the rest (the edges; the whole range when the offset is not a whole number of hours).
 */
export interface StatsPlan {
  hours: [number, number] | null;
  receiverDays: [number, number] | null;
  /** Per-order rows feeding days and weekday x hour: the range minus `hours`. */
  timelineSpans: Array<[number, number]>;
  /** Per-order rows feeding top receivers: the range minus `receiverDays`. */
  receiverSpans: Array<[number, number]>;
}

export function planFor(range: StatsRange): StatsPlan {
  const { from, to } = range;
  if (to <= from) return { hours: null, receiverDays: null, timelineSpans: [], receiverSpans: [] };
  const span = (a: number, b: number): [number, number] | null => (a < b ? [a, b] : null);
  const outside = (inner: [number, number] | null) =>
    inner ? [span(from, inner[0]), span(inner[1], to)].filter((s): s is [number, number] => s !== null) : [[from, to] as [number, number]];
  const hours = range.utcOffsetMinutes % 60 === 0 ? span(ceilTo(from, HOUR_MS), hourOf(to)) : null;
  const receiverDays = span(ceilTo(from, DAY_MS), dayOf(to));
  return { hours, receiverDays, timelineSpans: outside(hours), receiverSpans: outside(receiverDays) };
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
