/**
 * Stats, pure: order events emitted by the handlers on every transition (ids from the command), the
 * projection's counting rules and idempotence, and the AccountStats answer (range, clamp, offsets, series,
 * weekday x hour, top receivers, weighted average price) against a brute-force count over the same orders.
 */
import type { Account } from '../../services/domain/account';
import { fundedAccount, OrderMemory } from '../support/order-memory';
import { applyCommand } from '../../services/domain/apply';
import type { Command } from '../../services/domain/commands';
import { orderEventsOf, type OrderEvent } from '../../services/domain/order-events';
import type { Order } from '../../services/domain/orders/rules';
import type { StateView } from '../../services/domain/outcome';
import {
  accountStats, avgPricePer65k, localCellsOf, localDay, localDaysOf, monthsBefore, planFor, resolveRange, type DayRow, type StatsInput, type StatsRange,
} from '../../services/stats/account-stats';
import { contributionOf, factsOf, project, type Contribution, type OrderFacts, type Projected } from '../../services/stats/projection';
import { DAY_MS, splitQuarter } from '../../services/stats/rollups';

const ctx = { network: 'nile' as const, brand: 'energy' };
const DAY = 86_400_000;

function world() {
  const accounts = new Map<string, Account>([['acc_1', fundedAccount()]]);
  const orders = new OrderMemory();
  const view: StateView = { account: (id) => accounts.get(id), orders };
  let n = 0;
  const run = (body: Record<string, unknown>, commandId = `cmd_${++n}`): OrderEvent[] => {
    const command = { commandId, accountId: 'acc_1', issuedAt: 1_000_000 + n, deadlineAt: null, replyTo: null, ...body } as Command;
    const outcome = applyCommand(view, command as never, ctx);
    if (outcome.kind !== 'applied') throw new Error(JSON.stringify(outcome));
    for (const a of outcome.effects.accounts) accounts.set(a.id, a);
    for (const o of outcome.effects.orders ?? []) orders.orders.set(o.id, o);
    // Follow-ups (confirmed -> active) are applied after the command, as the log delivers them.
    return [...(outcome.effects.orderEvents ?? []), ...outcome.effects.followUps.flatMap((f) => run(f as never, f.commandId))];
  };
  return { run, orders };
}

const create = (extra: Record<string, unknown> = {}) => ({
  type: 'order.create', clientOrderId: null, idempotencyKey: null, requestHash: 'h1', resource: 'energy', amount: 65_000, tier: '5m', durationSeconds: 300,
  receiver: 'TR', receiverActive: true, activate: null, maxPriceSun: null, quoteId: null, quoteExpiresAt: null, priceSunPerUnit: 40n, paySun: 2_600_000n,
  activateSun: 0n, source: 'api', memo: null, supplier: 'pool', ...extra,
});
const delegate = (txId: string, amount: number) => ({ kind: 'delegate', from: 'TP', amount, sun: 1n, txId, signedTx: '{}' });

test('every transition of an order emits one order event with the whole order after it; ids derive from the command', () => {
  const w = world();
  const created = w.run(create(), 'cmd_create');
  expect(created.map((e) => e.type)).toEqual(['order.created']);
  const orderId = created[0].order.id as string;
  expect(created[0].order).toMatchObject({ status: 'allocating', price_sun_per_unit: 40n, pay_amount_sun: 2_600_000n, source: 'api', account_id: 'acc_1' });

  const allocated = w.run({ type: 'order.allocate', orderId, txs: [delegate('tx1', 40_000), delegate('tx2', 25_000)], ratioLimit: 1n, ratioWeight: 1n });
  expect(allocated.map((e) => e.type)).toEqual(['order.allocated']);
  // A second signer changes nothing: no event.
  expect(w.run({ type: 'order.allocate', orderId, txs: [delegate('tx9', 65_000)], ratioLimit: 1n, ratioWeight: 1n })).toEqual([]);

  const settled = w.run({ type: 'order.settle', orderId, landedTxIds: ['tx1'], deliveredAt: 2_000_000 });
  expect(settled.map((e) => [e.type, e.order.status])).toEqual([['order.confirmed', 'confirmed'], ['order.active', 'active']]);
  expect(settled[1].order).toMatchObject({ delivered_amount: 40_000, partial: true });
  expect(new Set(settled.map((e) => e.eventId)).size).toBe(2);

  expect(w.run({ type: 'order.close', orderId, step: 'request', reason: 'reclaimed', txs: [], idempotencyKey: null, at: 2_100_000, replaces: [] })).toEqual([]);
  expect(w.run({ type: 'order.close', orderId, step: 'signed', reason: 'reclaimed', txs: [{ ...delegate('u1', 0), kind: 'undelegate' }], idempotencyKey: null, at: 2_100_000, replaces: [] })).toEqual([]);
  const landed = w.run({ type: 'order.close', orderId, step: 'landed', reason: 'reclaimed', txs: [], idempotencyKey: null, at: 2_200_000, replaces: [] });
  expect(landed.map((e) => e.type)).toEqual(['order.reclaimed']);
  const refunded = w.run({ type: 'order.refund', orderId, reason: 'dispute' });
  expect(refunded.map((e) => [e.type, e.order.status])).toEqual([['order.refunded', 'refunded']]);

  // Same command, same before-state: identical ids (a replay re-emits them).
  const again = orderEventsOf({ commandId: 'cmd_create', issuedAt: 1 }, () => undefined, [w.orders.orders.get(orderId) as Order]);
  expect(again[0].eventId).toBe(created[0].eventId);
  // Never the id of an account-events event of the same command.
  expect(created[0].eventId).not.toBe(settled[0].eventId);
});

test('a failed order and an activation order emit failed and confirmed', () => {
  const w = world();
  const failedId = w.run(create())[0].order.id as string;
  w.run({ type: 'order.allocate', orderId: failedId, txs: [delegate('f1', 65_000)], ratioLimit: 1n, ratioWeight: 1n });
  expect(w.run({ type: 'order.settle', orderId: failedId, landedTxIds: [], deliveredAt: 5 }).map((e) => [e.type, e.order.refunded_amount_sun])).toEqual([['order.failed', 2_600_000n]]);

  const act = w.run(create({ resource: 'activation', amount: null, tier: null, durationSeconds: null, receiverActive: false, priceSunPerUnit: null, paySun: 0n, activateSun: 1_000_000n, receiver: 'TNEW' }));
  const actId = act[0].order.id as string;
  w.run({ type: 'order.allocate', orderId: actId, txs: [{ kind: 'activate', from: 'TP', amount: 0, sun: 1n, txId: 'a1', signedTx: '{}' }], ratioLimit: 1n, ratioWeight: 1n });
  expect(w.run({ type: 'order.settle', orderId: actId, landedTxIds: ['a1'], deliveredAt: 6 }).map((e) => e.type)).toEqual(['order.confirmed']);
});

const order = (o: Partial<Record<string, unknown>>) => factsOf({
  id: 'ord_1', account_id: 'acc_1', created_at: '2026-03-01T10:20:00.000Z', receiver: 'TR', resource: 'energy', status: 'active',
  amount: 65_000, delivered_amount: 65_000, total_amount_sun: 2_600_000, refunded_amount_sun: 0, price_sun_per_unit: 40, ...o,
});

test('counting rules: failed and refunded add no energy; partial counts delivered; activation adds spent; allocating not yet energy', () => {
  expect(contributionOf(order({}))).toMatchObject({ energy: 65_000n, spentSun: 2_600_000n, priceEnergy: 2_600_000n });
  expect(contributionOf(order({ delivered_amount: 40_000, refunded_amount_sun: 1_000_000 }))).toMatchObject({ energy: 40_000n, spentSun: 1_600_000n });
  expect(contributionOf(order({ status: 'failed', delivered_amount: null, refunded_amount_sun: 2_600_000 }))).toMatchObject({ energy: 0n, spentSun: 0n });
  expect(contributionOf(order({ status: 'refunded', refunded_amount_sun: 2_600_000 }))).toMatchObject({ energy: 0n, spentSun: 0n });
  expect(contributionOf(order({ status: 'allocating', delivered_amount: null }))).toMatchObject({ energy: 0n, spentSun: 2_600_000n });
  expect(contributionOf(order({ status: 'expired' }))).toMatchObject({ energy: 65_000n });
  expect(contributionOf(order({ resource: 'activation', amount: null, delivered_amount: null, status: 'confirmed', total_amount_sun: 1_000_000, price_sun_per_unit: null })))
    .toMatchObject({ energy: 0n, spentSun: 1_000_000n });
  expect(contributionOf(order({ resource: 'bandwidth' }))).toMatchObject({ energy: 0n, spentSun: 2_600_000n });
  // Statuses the rules do not name (added by later issues) count the order and its spend, never energy.
  for (const status of ['delegating', 'pending_chain', 'cancelled']) expect(contributionOf(order({ status }))).toMatchObject({ energy: 0n, spentSun: 2_600_000n });
  expect(contributionOf(order({ status: 'delegated' }))).toMatchObject({ energy: 65_000n });
  // An event that cannot be placed (no created_at) is refused at decode, not projected at NaN.
  expect(() => order({ created_at: 'not a date' })).toThrow(/created_at/);
});

test('projection: deltas move an order between states; replaying the same events changes nothing', () => {
  const events = [order({ status: 'allocating', delivered_amount: null }), order({ status: 'active' }), order({ status: 'refunded', refunded_amount_sun: 2_600_000 })];
  const first = project(new Map(), events);
  expect(first.contributions).toEqual([contributionOf(events[2])]);
  // 10:20 UTC is quarter 41: one day row whose prefix sums hold the refunded order's (zero) sums and one order from quarter 41 on.
  const day = Date.parse('2026-03-01T00:00:00Z');
  const sums = { orders: 1n, energy: 0n, spentSun: 0n, priceEnergy: 0n };
  expect(first.days).toEqual([{
    accountId: 'acc_1', day, orders: Array.from({ length: 96 }, (_, i) => (i >= 41 ? 1 : 0)), energy: new Array(96).fill(0n), spentSun: new Array(96).fill(0n), priceEnergy: 0n,
  }]);
  // 2026-03-01 is a Sunday (weekday 6).
  expect(first.gridMonths).toEqual([{ accountId: 'acc_1', month: day, weekday: 6, quarters: Array.from({ length: 96 }, (_, q) => (q === 41 ? 1 : 0)) }]);
  expect(first.receiverDays).toEqual([{ accountId: 'acc_1', at: day, receiver: 'TR', ...sums }]);
  expect(first.receiverMonths).toEqual([{ accountId: 'acc_1', at: day, receiver: 'TR', ...sums }]);
  const stored = new Map<string, Contribution>(first.contributions.map((c) => [c.orderId, c]));
  const replayed = project(stored, events.slice(1));
  // Over a stored refunded order, active then refunded again nets to no change.
  expect(replayed).toMatchObject({ days: [], gridMonths: [], receiverDays: [], receiverMonths: [] });
  expect(replayed.contributions).toEqual(first.contributions);
});

test('range: defaults to 30 days, 2001 when to is not after from, 13-month clamp', () => {
  const now = Date.parse('2026-11-22T12:00:00Z');
  expect(resolveRange({}, now)).toEqual({ from: now - 30 * DAY, to: now, requestedFrom: now - 30 * DAY, clamped: false, utcOffsetMinutes: 0 });
  expect(resolveRange({ from: now, to: now }, now)).toBe('invalid_range');
  expect(resolveRange({ from: now, to: now - 1 }, now)).toBe('invalid_range');
  expect(monthsBefore(now, 13)).toBe(Date.parse('2025-10-22T12:00:00Z'));
  expect(monthsBefore(Date.parse('2026-03-31T00:00:00Z'), 13)).toBe(Date.parse('2025-02-28T00:00:00Z'));
  const old = Date.parse('2024-01-01T00:00:00Z');
  expect(resolveRange({ from: old }, now)).toMatchObject({ from: Date.parse('2025-10-22T12:00:00Z'), requestedFrom: old, clamped: true });
  expect(avgPricePer65k(40n * 65_000n, 65_000n)).toBe(2_600_000n);
  expect(avgPricePer65k(0n, 0n)).toBeNull();
  // (40*1 + 41*2)/3 * 65,000 = 2,643,333.33 -> 2,643,333; and .5 rounds up.
  expect(avgPricePer65k(40n + 82n, 3n)).toBe(2_643_333n);
  expect(avgPricePer65k(1n, 130_000n)).toBe(1n);
});

interface Item {
  id?: string;
  at: number;
  receiver: string;
  orders: bigint;
  energy: bigint;
  spentSun: bigint;
  priceEnergy: bigint;
}

/** Deterministic pseudo-random orders over ~100 days (three whole months and parts of two more). */
function sample(count: number): Item[] {
  let seed = 7;
  const rnd = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
  const start = Date.parse('2026-07-28T00:00:00Z');
  return Array.from({ length: count }, (_, i) => {
    const energy = rnd() < 0.2 ? 0n : BigInt(Math.floor(rnd() * 100_000));
    return {
      id: `ord_${i}`, at: start + Math.floor(rnd() * 100 * DAY), receiver: `T${Math.floor(rnd() * 15)}`, orders: 1n, energy,
      spentSun: BigInt(Math.floor(rnd() * 5_000_000)), priceEnergy: energy * BigInt(30 + Math.floor(rnd() * 20)),
    };
  });
}

/** An order-events Order whose contribution is exactly the item's (delivered energy; price weight kept by a price of priceEnergy / energy). */
function factsFor(item: Item): OrderFacts {
  const price = item.energy > 0n ? item.priceEnergy / item.energy : 0n;
  return {
    orderId: item.id ?? `ord_${item.at}_${item.receiver}`, accountId: 'acc_1', createdAt: item.at, receiver: item.receiver, resource: 'energy', status: 'active',
    amount: item.energy, deliveredAmount: item.energy, totalSun: item.spentSun, refundedSun: 0n, priceSunPerUnit: price,
  };
}

/** What the store's SQL does, in memory: group by local day, by weekday x hour, by receiver. */
function grouped(timeline: Item[], receivers: Item[], offset: number): StatsInput {
  const days = new Map<number, Item & { day: number }>();
  const cells = new Map<string, { weekday: number; hour: number; orders: bigint }>();
  for (const t of timeline) {
    const day = localDay(t.at, offset);
    const d = days.get(day) ?? { ...t, day, orders: 0n, energy: 0n, spentSun: 0n, priceEnergy: 0n };
    d.orders += t.orders; d.energy += t.energy; d.spentSun += t.spentSun; d.priceEnergy += t.priceEnergy;
    days.set(day, d);
    const weekday = (new Date((t.at + offset * 60_000)).getUTCDay() + 6) % 7;
    const hour = new Date(t.at + offset * 60_000).getUTCHours();
    const c = cells.get(`${weekday}:${hour}`) ?? { weekday, hour, orders: 0n };
    c.orders += t.orders;
    cells.set(`${weekday}:${hour}`, c);
  }
  const byReceiver = new Map<string, Item>();
  for (const r of receivers) {
    const x = byReceiver.get(r.receiver) ?? { ...r, orders: 0n, energy: 0n, spentSun: 0n, priceEnergy: 0n };
    x.orders += r.orders; x.energy += r.energy; x.spentSun += r.spentSun;
    byReceiver.set(r.receiver, x);
  }
  return { days: [...days.values()], weekdayHours: [...cells.values()], receivers: [...byReceiver.values()] };
}

/** The rollup tables in memory, filled by the projection itself. */
function rollupsOf(orders: Item[]): Projected {
  // Two passes, as events arrive: first allocating (no energy), then the final state over the stored contributions.
  const first = project(new Map(), orders.map((o) => ({ ...factsFor(o), status: 'allocating' })));
  const stored = new Map<string, Contribution>(first.contributions.map((c) => [c.orderId, c]));
  const second = project(stored, orders.map(factsFor));
  return { ...second, days: [...first.days, ...second.days], gridMonths: [...first.gridMonths, ...second.gridMonths], receiverDays: [...first.receiverDays, ...second.receiverDays], receiverMonths: [...first.receiverMonths, ...second.receiverMonths] };
}

/** What the store's three statements read for a plan, over in-memory rollups (the SQL's WHERE and GROUP BY, by hand). */
function inputFor(orders: Item[], range: StatsRange): StatsInput {
  const plan = planFor(range);
  const r = rollupsOf(orders);
  const inSpan = (at: number, s: [number, number] | null) => s !== null && at >= s[0] && at < s[1];
  const inSpans = (at: number, spans: Array<[number, number]>) => spans.some((s) => inSpan(at, s));
  const zero = () => ({ orders: 0n, energy: 0n, spentSun: 0n, priceEnergy: 0n });
  const add = (t: ReturnType<typeof zero>, x: ReturnType<typeof zero>) => { t.orders += x.orders; t.energy += x.energy; t.spentSun += x.spentSun; t.priceEnergy += x.priceEnergy; };
  const dayRows = new Map<number, DayRow>();
  // Prefix column k is index k - 1: the whole day is index 95, the head before quarter m is index m - 1.
  const at = (d: Projected['days'][number], k: number) => ({ orders: BigInt(d.orders[k - 1]), energy: d.energy[k - 1], spentSun: d.spentSun[k - 1], priceEnergy: 0n });
  for (const d of r.days.filter((x) => inSpan(x.day, plan.days))) {
    const row = dayRows.get(d.day) ?? { day: d.day, total: zero(), part: zero() };
    add(row.total, { ...at(d, 96), priceEnergy: d.priceEnergy });
    add(row.part, at(d, plan.split?.quarter ?? 96));
    dayRows.set(d.day, row);
  }
  const grid = new Map<number, number[]>();
  const gridRows = [
    ...r.gridMonths.filter((g) => inSpan(g.month, plan.gridMonths)),
    ...r.days.filter((d) => inSpans(d.day, plan.gridDays)).map((d) => ({ weekday: (d.day / DAY_MS + 3) % 7, quarters: d.orders.map((n, i) => n - (i === 0 ? 0 : d.orders[i - 1])) })),
  ];
  for (const g of gridRows) {
    const q = grid.get(g.weekday) ?? new Array<number>(96).fill(0);
    g.quarters.forEach((n, i) => (q[i] += n));
    grid.set(g.weekday, q);
  }
  const edges = grouped(orders.filter((o) => inSpans(o.at, plan.timelineSpans)), [], range.utcOffsetMinutes);
  const receiverRows = [
    ...r.receiverMonths.filter((x) => inSpan(x.at, plan.receiverMonths)), ...r.receiverDays.filter((x) => inSpans(x.at, plan.receiverDays)),
    ...orders.filter((o) => inSpans(o.at, plan.receiverSpans)),
  ];
  return {
    days: [...localDaysOf([...dayRows.values()], plan.split, range.utcOffsetMinutes), ...edges.days],
    weekdayHours: [...localCellsOf([...grid].map(([weekday, quarters]) => ({ weekday, quarters })), range.utcOffsetMinutes), ...edges.weekdayHours],
    receivers: grouped([], receiverRows as Item[], 0).receivers,
  };
}

test('split quarter: where local days start inside a UTC day', () => {
  expect(splitQuarter(0)).toBe(0);
  expect(splitQuarter(330)).toBe(74);
  expect(splitQuarter(-300)).toBe(20);
  expect(splitQuarter(840)).toBe(40);
  expect(splitQuarter(345)).toBe(73);
  expect(splitQuarter(-210)).toBe(14);
});

test.each([0, -300, 330, 345, -210, 60, 840, -720, 7])('rollups plus edges give exactly the brute-force answer at utc_offset_minutes=%i', (offset) => {
  const orders = sample(4_000);
  const now = Date.parse('2026-11-22T12:00:00Z');
  const range = resolveRange({ from: Date.parse('2026-07-30T07:45:00Z'), to: Date.parse('2026-11-03T16:10:00Z'), utcOffsetMinutes: offset }, now);
  if (range === 'invalid_range') throw new Error('range');
  const fromBuckets = accountStats(range, inputFor(orders, range));
  const inRange = orders.filter((o) => o.at >= range.from && o.at < range.to);
  const brute = accountStats(range, grouped(inRange, inRange, offset));
  expect(fromBuckets).toEqual(brute);
  const plan = planFor(range);
  // Quarter offsets read rollups (two whole months of them); others every order.
  expect(plan.days === null).toBe(offset % 15 !== 0);
  expect(plan.receiverMonths).toEqual([Date.parse('2026-08-01T00:00:00Z'), Date.parse('2026-11-01T00:00:00Z')]);
  if (offset % 15 === 0) expect(plan.gridMonths).toEqual(plan.receiverMonths);

  // Independent count of the same orders for a few fields.
  const local = (at: number) => new Date(at + offset * 60_000);
  const series = fromBuckets.series as Array<{ date: string; orders: number }>;
  expect(series[0].date).toBe(local(range.from).toISOString().slice(0, 10));
  expect(series[series.length - 1].date).toBe(local(range.to - 1).toISOString().slice(0, 10));
  for (const row of series) expect(row.orders).toBe(inRange.filter((o) => local(o.at).toISOString().slice(0, 10) === row.date).length);
  const grid = fromBuckets.weekday_hour as number[][];
  expect(grid[0][9]).toBe(inRange.filter((o) => local(o.at).getUTCDay() === 1 && local(o.at).getUTCHours() === 9).length);
  expect(grid[6][23]).toBe(inRange.filter((o) => local(o.at).getUTCDay() === 0 && local(o.at).getUTCHours() === 23).length);
  expect((fromBuckets.totals as { orders: number }).orders).toBe(inRange.length);
});

test('a day with no orders is a zero row; top receivers by orders', () => {
  const at = Date.parse('2026-11-10T05:00:00Z');
  const orders: Item[] = [
    { at, receiver: 'TA', orders: 1n, energy: 10n, spentSun: 5n, priceEnergy: 400n },
    { at: at + 2 * DAY, receiver: 'TB', orders: 1n, energy: 0n, spentSun: 7n, priceEnergy: 0n },
    { at: at + 2 * DAY + 1, receiver: 'TB', orders: 1n, energy: 0n, spentSun: 7n, priceEnergy: 0n },
  ];
  const range = resolveRange({ from: Date.parse('2026-11-10T00:00:00Z'), to: Date.parse('2026-11-13T00:00:00Z') }, Date.parse('2026-11-22T00:00:00Z'));
  if (range === 'invalid_range') throw new Error('range');
  const stats = accountStats(range, inputFor(orders, range));
  expect(stats.series).toEqual([
    { date: '2026-11-10', orders: 1, energy: 10, spent_sun: 5n },
    { date: '2026-11-11', orders: 0, energy: 0, spent_sun: 0n },
    { date: '2026-11-12', orders: 2, energy: 0, spent_sun: 14n },
  ]);
  expect(stats.top_receivers).toEqual([{ receiver: 'TB', orders: 2, energy: 0, spent_sun: 14n }, { receiver: 'TA', orders: 1, energy: 10, spent_sun: 5n }]);
  expect(stats.totals).toEqual({ orders: 3, energy: 10, spent_sun: 19n, avg_price_sun_per_65k: 2_600_000 });
});
