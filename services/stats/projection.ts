/**
 * The stats projection as a pure function over plain data: order events in, per-order contributions and
 * the deltas of the rollups (services/stats/rollups.ts) out. Counting rules (spec section 2, AccountStats): every order
 * counts once whatever its status; energy is the delivered energy of energy orders that reached the chain
 * (delegated through reclaimed), never of failed or refunded ones; spent is total minus refunded, activation
 * included; the price weight is price_sun_per_unit times that energy. An event carries the whole order, so
 * applying the same event twice changes nothing (the contribution is replaced, the deltas are zero).
 */
import { dayStart, monthStart, QUARTER_MS, quarterOfDay, QUARTERS_PER_DAY, utcWeekday } from './rollups';

/** The fields of an order-events record the projection reads. */
export interface OrderFacts {
  orderId: string;
  accountId: string;
  createdAt: number;
  receiver: string;
  resource: string;
  status: string;
  amount: bigint | null;
  deliveredAmount: bigint | null;
  totalSun: bigint;
  refundedSun: bigint;
  priceSunPerUnit: bigint | null;
}

export interface Contribution {
  orderId: string;
  accountId: string;
  createdAt: number;
  receiver: string;
  energy: bigint;
  spentSun: bigint;
  priceEnergy: bigint;
}

export interface Sums {
  orders: bigint;
  energy: bigint;
  spentSun: bigint;
  priceEnergy: bigint;
}

/**
 * What one batch adds to a stats_days row: prefix sums over the UTC day's quarter-hours (entry k - 1 is
 * quarters [0, k), column o<k>/e<k>/s<k>), and the day's price weight.
 */
export interface DayDelta {
  accountId: string;
  /** UTC day start, epoch ms. */
  day: number;
  orders: number[];
  energy: bigint[];
  spentSun: bigint[];
  priceEnergy: bigint;
}

export interface GridMonthDelta {
  accountId: string;
  /** UTC month start, epoch ms. */
  month: number;
  /** ISO weekday (Monday 0) of the UTC days this row sums. */
  weekday: number;
  quarters: number[];
}

export interface ReceiverDelta extends Sums {
  accountId: string;
  /** UTC day start (receiverDays) or UTC month start (receiverMonths), epoch ms. */
  at: number;
  receiver: string;
}

export interface Projected {
  /** Final contribution of every order the batch touched. */
  contributions: Contribution[];
  days: DayDelta[];
  gridMonths: GridMonthDelta[];
  receiverDays: ReceiverDelta[];
  receiverMonths: ReceiverDelta[];
}

/**
 * States in which an energy order's delegation reached the chain. Any other status (allocating, failed,
 * refunded, or one added later) counts the order and what it spent, never energy.
 */
const onChain = new Set(['delegated', 'confirmed', 'active', 'expired', 'reclaimed']);

/**
 * Reads the projection's fields from the Order object of an order-events record; throws (the record is
 * then kept as undecodable) when the fields that place it in the rollups are missing.
 */
export function factsOf(order: Record<string, unknown>): OrderFacts {
  const big = (v: unknown) => (v === null || v === undefined ? null : BigInt(v as bigint | number | string));
  const createdAt = Date.parse(String(order.created_at));
  if (!order.id || !order.account_id || !Number.isFinite(createdAt) || createdAt < 0) throw new Error(`order event without id, account or created_at: ${String(order.id)}`);
  return {
    orderId: String(order.id),
    accountId: String(order.account_id),
    createdAt,
    receiver: String(order.receiver),
    resource: String(order.resource),
    status: String(order.status),
    amount: big(order.amount),
    deliveredAmount: big(order.delivered_amount),
    totalSun: big(order.total_amount_sun) ?? 0n,
    refundedSun: big(order.refunded_amount_sun) ?? 0n,
    priceSunPerUnit: big(order.price_sun_per_unit),
  };
}

export function contributionOf(o: OrderFacts): Contribution {
  const energy = o.resource === 'energy' && onChain.has(o.status) ? (o.deliveredAmount ?? o.amount ?? 0n) : 0n;
  return {
    orderId: o.orderId, accountId: o.accountId, createdAt: o.createdAt, receiver: o.receiver,
    energy, spentSun: o.totalSun - o.refundedSun, priceEnergy: energy * (o.priceSunPerUnit ?? 0n),
  };
}

const zero = (): Sums => ({ orders: 0n, energy: 0n, spentSun: 0n, priceEnergy: 0n });

function addInto(target: Sums, sign: 1n | -1n, c: Contribution): void {
  target.orders += sign;
  target.energy += sign * c.energy;
  target.spentSun += sign * c.spentSun;
  target.priceEnergy += sign * c.priceEnergy;
}

const nonZero = (s: Sums) => s.orders !== 0n || s.energy !== 0n || s.spentSun !== 0n || s.priceEnergy !== 0n;

/**
 * Deltas of one batch. Events are summed per (account, UTC quarter-hour) and per (account, UTC day,
 * receiver) first, one map entry each, and only then spread over the rows they move (a day row, a grid
 * row, two receiver rows), so a bulk rebuild does the spreading once per distinct bucket, and an
 * event that changes nothing (a duplicate) nets to zero before it costs any row.
 */
class Deltas {
  private quarters = new Map<string, { accountId: string; at: number; sums: Sums }>();
  private receivers = new Map<string, { accountId: string; day: number; receiver: string; sums: Sums }>();

  /** Adds `sign` times the contribution of `c` to its quarter-hour and its receiver-day. */
  add(c: Contribution, sign: 1n | -1n): void {
    const at = Math.floor(c.createdAt / QUARTER_MS) * QUARTER_MS;
    const qKey = `${c.accountId}|${at}`;
    const q = this.quarters.get(qKey) ?? { accountId: c.accountId, at, sums: zero() };
    addInto(q.sums, sign, c);
    this.quarters.set(qKey, q);
    const day = dayStart(c.createdAt);
    const rKey = `${c.accountId}|${day}|${c.receiver}`;
    const r = this.receivers.get(rKey) ?? { accountId: c.accountId, day, receiver: c.receiver, sums: zero() };
    addInto(r.sums, sign, c);
    this.receivers.set(rKey, r);
  }

  /** The rollup rows the summed deltas move, zero rows left out. */
  rows(): Omit<Projected, 'contributions'> {
    const perDay = new Map<string, { accountId: string; day: number; orders: number[]; energy: bigint[]; spentSun: bigint[]; priceEnergy: bigint }>();
    const gridMonths = new Map<string, GridMonthDelta>();
    for (const { accountId, at, sums } of this.quarters.values()) {
      if (!nonZero(sums)) continue;
      const day = dayStart(at);
      const quarter = quarterOfDay(at);
      const dayKey = `${accountId}|${day}`;
      let d = perDay.get(dayKey);
      if (!d) {
        d = { accountId, day, orders: new Array<number>(QUARTERS_PER_DAY).fill(0), energy: new Array<bigint>(QUARTERS_PER_DAY).fill(0n), spentSun: new Array<bigint>(QUARTERS_PER_DAY).fill(0n), priceEnergy: 0n };
        perDay.set(dayKey, d);
      }
      d.orders[quarter] += Number(sums.orders);
      d.energy[quarter] += sums.energy;
      d.spentSun[quarter] += sums.spentSun;
      d.priceEnergy += sums.priceEnergy;
      if (sums.orders === 0n) continue;
      const month = monthStart(at);
      const weekday = utcWeekday(at);
      const gmKey = `${accountId}|${month}|${weekday}`;
      const gm = gridMonths.get(gmKey) ?? { accountId, month, weekday, quarters: new Array<number>(QUARTERS_PER_DAY).fill(0) };
      gm.quarters[quarter] += Number(sums.orders);
      gridMonths.set(gmKey, gm);
    }
    const days: DayDelta[] = [];
    for (const d of perDay.values()) {
      if (!anyQuarter(d.orders) && !d.energy.some((x) => x !== 0n) && !d.spentSun.some((x) => x !== 0n) && d.priceEnergy === 0n) continue;
      days.push({ ...d, orders: prefix(d.orders, 0), energy: prefix(d.energy, 0n), spentSun: prefix(d.spentSun, 0n) });
    }
    const receiverDays: ReceiverDelta[] = [];
    const receiverMonths = new Map<string, ReceiverDelta>();
    for (const { accountId, day, receiver, sums } of this.receivers.values()) {
      if (!nonZero(sums)) continue;
      receiverDays.push({ accountId, at: day, receiver, ...sums });
      const month = monthStart(day);
      const key = `${accountId}|${month}|${receiver}`;
      const row = receiverMonths.get(key) ?? { accountId, at: month, receiver, ...zero() };
      addSums(row, sums);
      receiverMonths.set(key, row);
    }
    return {
      days,
      gridMonths: [...gridMonths.values()].filter((g) => anyQuarter(g.quarters)),
      receiverDays,
      receiverMonths: [...receiverMonths.values()].filter(nonZero),
    };
  }
}

function addSums(target: Sums, s: Sums): void {
  target.orders += s.orders;
  target.energy += s.energy;
  target.spentSun += s.spentSun;
  target.priceEnergy += s.priceEnergy;
}

const anyQuarter = (q: number[]) => q.some((n) => n !== 0);

/** Running sums: entry i is the sum of entries 0..i. */
function prefix<T extends number | bigint>(values: T[], zero: T): T[] {
  let sum = zero;
  return values.map((v) => (sum = ((sum as bigint) + (v as bigint)) as T));
}

/**
 * Applies events (in log order) over the stored contributions of their orders: each event replaces its
 * order's contribution and moves every rollup row by the difference (an order's creation time, account
 * and receiver never change, so before and after land in the same rows).
 */
export function project(previous: ReadonlyMap<string, Contribution>, events: OrderFacts[]): Projected {
  const current = new Map(previous);
  const touched = new Set<string>();
  const deltas = new Deltas();
  for (const facts of events) {
    const next = contributionOf(facts);
    const before = current.get(facts.orderId);
    if (before) deltas.add(before, -1n);
    deltas.add(next, 1n);
    current.set(facts.orderId, next);
    touched.add(facts.orderId);
  }
  return { contributions: [...touched].map((id) => current.get(id) as Contribution), ...deltas.rows() };
}
