/**
 * The stats projection as a pure function over plain data: order events in, per-order contributions and
 * per-account hour and receiver-day deltas out. Counting rules (spec section 2, AccountStats): every order
 * counts once whatever its status; energy is the delivered energy of energy orders that reached the chain
 * (delegated through reclaimed), never of failed or refunded ones; spent is total minus refunded, activation
 * included; the price weight is price_sun_per_unit times that energy. An event carries the whole order, so
 * applying the same event twice changes nothing (the contribution is replaced, the deltas are zero).
 */
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

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

export interface HourDelta extends Sums {
  accountId: string;
  hour: number;
}

export interface ReceiverDayDelta extends Sums {
  accountId: string;
  day: number;
  receiver: string;
}

export interface Projected {
  /** Final contribution of every order the batch touched. */
  contributions: Contribution[];
  hours: HourDelta[];
  receiverDays: ReceiverDayDelta[];
}

/** States in which an energy order's delegation reached the chain. */
const onChain = new Set(['delegated', 'confirmed', 'active', 'expired', 'reclaimed']);

/** Reads the projection's fields from the Order object of an order-events record. */
export function factsOf(order: Record<string, unknown>): OrderFacts {
  const big = (v: unknown) => (v === null || v === undefined ? null : BigInt(v as bigint | number | string));
  return {
    orderId: String(order.id),
    accountId: String(order.account_id),
    createdAt: Date.parse(String(order.created_at)),
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

export const hourOf = (ms: number) => Math.floor(ms / HOUR_MS) * HOUR_MS;
export const dayOf = (ms: number) => Math.floor(ms / DAY_MS) * DAY_MS;

const zero = (): Sums => ({ orders: 0n, energy: 0n, spentSun: 0n, priceEnergy: 0n });

function addInto(target: Sums, sign: 1n | -1n, c: Contribution): void {
  target.orders += sign;
  target.energy += sign * c.energy;
  target.spentSun += sign * c.spentSun;
  target.priceEnergy += sign * c.priceEnergy;
}

const nonZero = (s: Sums) => s.orders !== 0n || s.energy !== 0n || s.spentSun !== 0n || s.priceEnergy !== 0n;

/**
 * Applies events (in log order) over the stored contributions of their orders. An order's creation time
 * and receiver never change, so its contribution always lands in the same hour and receiver-day.
 */
export function project(previous: ReadonlyMap<string, Contribution>, events: OrderFacts[]): Projected {
  const current = new Map(previous);
  const touched = new Set<string>();
  const hours = new Map<string, HourDelta>();
  const days = new Map<string, ReceiverDayDelta>();
  for (const facts of events) {
    const next = contributionOf(facts);
    const before = current.get(facts.orderId);
    const hour = hourOf(next.createdAt);
    const day = dayOf(next.createdAt);
    const h = hours.get(`${next.accountId}|${hour}`) ?? { accountId: next.accountId, hour, ...zero() };
    const d = days.get(`${next.accountId}|${day}|${next.receiver}`) ?? { accountId: next.accountId, day, receiver: next.receiver, ...zero() };
    if (before) {
      addInto(h, -1n, before);
      addInto(d, -1n, before);
    }
    addInto(h, 1n, next);
    addInto(d, 1n, next);
    hours.set(`${next.accountId}|${hour}`, h);
    days.set(`${next.accountId}|${day}|${next.receiver}`, d);
    current.set(facts.orderId, next);
    touched.add(facts.orderId);
  }
  return {
    contributions: [...touched].map((id) => current.get(id) as Contribution),
    hours: [...hours.values()].filter(nonZero),
    receiverDays: [...days.values()].filter(nonZero),
  };
}
