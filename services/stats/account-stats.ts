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
 * the per-order rows for the rest (the edges; everything when the offset is not a whole number of hours).
 */
export interface StatsPlan {
  hours: [number, number] | null;
  receiverDays: [number, number] | null;
  /** Per-order rows in these [start, end) spans; together they cover what the buckets do not. */
  orderSpans: Array<[number, number]>;
}

export function planFor(range: StatsRange): StatsPlan {
  const { from, to } = range;
  if (to <= from) return { hours: null, receiverDays: null, orderSpans: [] };
  const span = (a: number, b: number): [number, number] | null => (a < b ? [a, b] : null);
  const hours = range.utcOffsetMinutes % 60 === 0 ? span(ceilTo(from, HOUR_MS), hourOf(to)) : null;
  const receiverDays = span(ceilTo(from, DAY_MS), dayOf(to));
  // Per-order rows cover what the receiver-days do not (inside the hours span whenever both exist), and
  // the whole range when there are no usable hour buckets.
  const orderSpans = hours && receiverDays
    ? [span(from, receiverDays[0]), span(receiverDays[1], to)].filter((s): s is [number, number] => s !== null)
    : [[from, to] as [number, number]];
  return { hours, receiverDays, orderSpans };
}

export interface TimedSums extends Sums {
  at: number;
}

export interface ReceiverSums extends Sums {
  receiver: string;
}

export interface EdgeOrder extends TimedSums {
  receiver: string;
}

export interface StatsInput {
  /** Hour buckets inside plan.hours. */
  hours: TimedSums[];
  /** Receiver sums over plan.receiverDays. */
  receivers: ReceiverSums[];
  /** Per-order rows inside plan.orderSpans. */
  orders: EdgeOrder[];
}

function localDay(at: number, offsetMinutes: number): number {
  return Math.floor((at + offsetMinutes * MINUTE_MS) / DAY_MS);
}

/** round(priceEnergy * 65,000 / energy), half up, in integers; null without energy. */
export function avgPricePer65k(priceEnergy: bigint, energy: bigint): bigint | null {
  if (energy <= 0n) return null;
  return (2n * priceEnergy * 65_000n + energy) / (2n * energy);
}

const isoDate = (dayNumber: number) => new Date(dayNumber * DAY_MS).toISOString().slice(0, 10);

export function accountStats(range: StatsRange, plan: StatsPlan, input: StatsInput): Record<string, unknown> {
  const offset = range.utcOffsetMinutes;
  const inHours = (at: number) => plan.hours !== null && at >= plan.hours[0] && at < plan.hours[1];
  const inDays = (at: number) => plan.receiverDays !== null && at >= plan.receiverDays[0] && at < plan.receiverDays[1];
  const timeline: TimedSums[] = [...input.hours, ...input.orders.filter((o) => !inHours(o.at))];

  const firstDay = localDay(range.from, offset);
  const lastDay = range.to > range.from ? localDay(range.to - 1, offset) : firstDay - 1;
  const series = Array.from({ length: Math.max(0, lastDay - firstDay + 1) }, (_, i) => ({ day: firstDay + i, orders: 0n, energy: 0n, spentSun: 0n }));
  const weekdayHour = Array.from({ length: 7 }, () => new Array<number>(24).fill(0));
  const totals = { orders: 0n, energy: 0n, spentSun: 0n, priceEnergy: 0n };
  for (const t of timeline) {
    const local = t.at + offset * MINUTE_MS;
    const day = Math.floor(local / DAY_MS);
    const row = series[day - firstDay];
    if (row) {
      row.orders += t.orders;
      row.energy += t.energy;
      row.spentSun += t.spentSun;
    }
    // 1970-01-01 was a Thursday: ISO weekday index (Monday 0) is (day + 3) mod 7.
    const weekday = (((day + 3) % 7) + 7) % 7;
    const hour = Math.floor((local - day * DAY_MS) / HOUR_MS);
    weekdayHour[weekday][hour] += Number(t.orders);
    totals.orders += t.orders;
    totals.energy += t.energy;
    totals.spentSun += t.spentSun;
    totals.priceEnergy += t.priceEnergy;
  }

  const receivers = new Map<string, ReceiverSums>();
  const addReceiver = (r: ReceiverSums) => {
    const sum = receivers.get(r.receiver) ?? { receiver: r.receiver, orders: 0n, energy: 0n, spentSun: 0n, priceEnergy: 0n };
    sum.orders += r.orders;
    sum.energy += r.energy;
    sum.spentSun += r.spentSun;
    receivers.set(r.receiver, sum);
  };
  input.receivers.forEach(addReceiver);
  input.orders.filter((o) => !inDays(o.at)).forEach(addReceiver);
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
    series: series.map((s) => ({ date: isoDate(s.day), orders: Number(s.orders), energy: Number(s.energy), spent_sun: s.spentSun })),
    weekday_hour: weekdayHour,
    top_receivers: top.map((r) => ({ receiver: r.receiver, orders: Number(r.orders), energy: Number(r.energy), spent_sun: r.spentSun })),
  };
}
