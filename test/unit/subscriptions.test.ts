/**
 * Subscriptions, pure: the handlers (idempotency, limits 3023/3024, pause, end, a refill that becomes an
 * ordinary order or suspends with its reason, one refill in flight, resume when the cause clears) and the
 * watcher's rules (free resources, touched receivers, stable command ids).
 */
import { emptyIdentity, emptyTotals, type Account } from '../../services/domain/account';
import { applyCommand } from '../../services/domain/apply';
import type { Command } from '../../services/domain/commands';
import type { Order } from '../../services/domain/orders/rules';
import type { OrderView, StateView } from '../../services/domain/outcome';
import { priceTable } from '../../services/domain/pricing';
import { subscriptionStepFromWire, subscriptionStepToWire } from '../../services/platform/wire/subscription-steps';
import { subscriptionRequestHash, type Subscription, type SubscriptionSpec, type SubscriptionView } from '../../services/domain/subscriptions/rules';
import { stakeCovers } from '../../services/subscriptions/pool-cover';
import { freeOf, planAction, refillPrice, touchedBy, watchAction } from '../../services/subscriptions/watch-rules';

const ctx = { network: 'nile' as const, brand: 'energy' };
const DAY = 86_400_000;
const T0 = Date.UTC(2026, 10, 22, 12);

class Memory implements SubscriptionView {
  subs = new Map<string, Subscription>();
  orders = new Map<string, Order>();
  byId = (id: string) => this.subs.get(id);
  byClientId = (a: string, c: string) => [...this.subs.values()].find((s) => s.accountId === a && s.clientSubscriptionId === c);
  liveOf = (a: string) => [...this.subs.values()].filter((s) => s.accountId === a && s.status !== 'ended');
  loadedOrder = (id: string) => this.orders.get(id);
}

function world(balanceSun: bigint) {
  const accounts = new Map<string, Account>([['acc_1', {
    id: 'acc_1', brand: 'energy', network: 'nile', ownerAddress: null, displayName: null, status: 'active', balanceSun, balanceUsdt: 0n, reservedSun: 0n,
    totals: emptyTotals(), ...emptyIdentity(), createdAt: 0, updatedAt: 0,
  }]]);
  const mem = new Memory();
  const orders: OrderView = {
    byId: (id) => mem.orders.get(id), byClientId: () => undefined, byQuote: () => undefined, idempotency: () => undefined,
  };
  const view: StateView = { account: (id) => accounts.get(id), orders, subscriptions: mem };
  let n = 0;
  const run = (body: Record<string, unknown>, at = T0 + n) => {
    const command = { commandId: `cmd_${++n}`, accountId: 'acc_1', issuedAt: at, deadlineAt: null, replyTo: null, ...body } as Command;
    const outcome = applyCommand(view, command as never, ctx);
    if (outcome.kind === 'applied') {
      for (const a of outcome.effects.accounts) accounts.set(a.id, a);
      for (const o of outcome.effects.orders ?? []) mem.orders.set(o.id, o);
      for (const s of outcome.effects.subscriptions ?? []) mem.subs.set(s.id, s);
    }
    return outcome;
  };
  return { accounts, mem, run };
}

const spec = (extra: Partial<SubscriptionSpec> = {}): SubscriptionSpec => ({
  kind: 'refill', receiver: 'TRecv1', resource: 'energy', amount: 65_000, tier: '1h', thresholdAmount: 30_000, maxPriceSun: null, maxRefillsPerDay: 24, ...extra,
});
const create = (s: SubscriptionSpec, cid: string | null = null) => ({
  type: 'subscription.create', clientSubscriptionId: cid, requestHash: subscriptionRequestHash(cid, s), ...s,
});
const pricing = { receiverActive: true, priceSunPerUnit: 60n, paySun: 3_900_000n, activateSun: 0n, durationSeconds: 3600, supplier: 'pool' };
const refill = (id: string, trigger = 1_000) => ({ type: 'subscription.refill', subscriptionId: id, triggerAvailable: trigger, ...pricing });

test('creation: idempotent by client_subscription_id, 3010 on another body, 3024 per receiver and resource, 3023 at 100', () => {
  const { run } = world(100_000_000n);
  const first = run(create(spec(), 'c1'));
  expect(first).toMatchObject({ kind: 'applied', status: 201, body: { kind: 'refill', status: 'active', client_subscription_id: 'c1', refills_today: 0, reason: null } });
  expect(run(create(spec(), 'c1'))).toMatchObject({ kind: 'applied', status: 200, body: { id: (first as any).body.id } });
  expect(run(create(spec({ amount: 70_000 }), 'c1'))).toMatchObject({ kind: 'rejected', error: { slug: 'idempotency_conflict' } });
  expect(run(create(spec()))).toMatchObject({ kind: 'rejected', error: { slug: 'subscription_exists' } });
  expect(run(create(spec({ resource: 'bandwidth', amount: 1000 })))).toMatchObject({ kind: 'applied', status: 201 });
  for (let i = 2; i < 100; i += 1) expect(run(create(spec({ receiver: `TRecv${i}` }))).kind).toBe('applied');
  expect(run(create(spec({ receiver: 'TRecvX' })))).toMatchObject({ kind: 'rejected', error: { slug: 'subscription_limit', details: { limit: 100, used: 100 } } });
  // An ended one frees its place and its receiver.
  run({ type: 'subscription.end', subscriptionId: (first as any).body.id });
  expect(run(create(spec()))).toMatchObject({ kind: 'applied', status: 201 });
});

test('a refill is an ordinary order (source subscription, subscription_id), one in flight, counted per UTC day, with subscription.refilled', () => {
  const { run, mem, accounts } = world(100_000_000n);
  const id = (run(create(spec())) as any).body.id;
  const done = run(refill(id, 1_234));
  expect(done).toMatchObject({ kind: 'applied', status: 201, body: { refilled: true, refills_today: 1 } });
  const order = [...mem.orders.values()][0];
  expect(order).toMatchObject({ source: 'subscription', subscriptionId: id, amount: 65_000, tier: '1h', totalSun: 3_900_000n, status: 'allocating' });
  expect(accounts.get('acc_1')!.reservedSun).toBe(3_900_000n);
  const effects = (done as any).effects;
  expect(effects.events.map((e: any) => e.type)).toEqual(['subscription.refilled']);
  expect(effects.events[0].data).toEqual({
    subscription_id: id, order_id: order.id, receiver: 'TRecv1', resource: 'energy', amount: 65_000, tier: '1h', trigger_available: 1_234,
    threshold_amount: 30_000, total_amount_sun: 3_900_000n, refills_today: 1,
  });
  expect(effects.orderEvents.map((e: any) => e.type)).toEqual(['order.created']);
  expect(effects.orderEvents[0].order).toMatchObject({ source: 'subscription', subscription_id: id });
  // In flight: a second crossing seen before delivery changes nothing.
  expect(run(refill(id))).toMatchObject({ kind: 'applied', body: { refilled: false } });
  expect(mem.orders.size).toBe(1);
  mem.orders.set(order.id, { ...order, status: 'active' });
  expect(run(refill(id))).toMatchObject({ kind: 'applied', body: { refilled: true, refills_today: 2 } });
  // The next UTC day counts from one again.
  const last = [...mem.orders.values()].find((o) => o.id !== order.id)!;
  mem.orders.set(last.id, { ...last, status: 'active' });
  expect(run(refill(id), T0 + DAY)).toMatchObject({ body: { refills_today: 1 } });
});

test('a refill that cannot run suspends once with its reason; resume when the cause clears', () => {
  const { run, mem, accounts } = world(1_000_000n);
  const id = (run(create(spec())) as any).body.id;
  const poor = run(refill(id));
  expect(poor).toMatchObject({ kind: 'applied', body: { status: 'suspended', reason: 'insufficient_funds' } });
  expect((poor as any).effects.events[0]).toMatchObject({
    type: 'subscription.suspended', data: { subscription_id: id, receiver: 'TRecv1', reason: 'insufficient_funds', required_sun: 3_900_000n, available_sun: 1_000_000n },
  });
  expect(mem.orders.size).toBe(0);
  // Suspended: another crossing neither orders nor suspends again.
  expect((run(refill(id)) as any).effects.events).toEqual([]);
  expect(run({ type: 'subscription.resume', subscriptionId: id, ...pricing })).toMatchObject({ body: { status: 'suspended', resumed: false } });
  accounts.set('acc_1', { ...accounts.get('acc_1')!, balanceSun: 10_000_000n });
  expect(run({ type: 'subscription.resume', subscriptionId: id, ...pricing })).toMatchObject({ body: { status: 'active', reason: null } });

  const capped = world(100_000_000n);
  const cid = (capped.run(create(spec({ maxPriceSun: 1_000_000n }))) as any).body.id;
  expect(capped.run(refill(cid))).toMatchObject({ body: { status: 'suspended', reason: 'price_above_limit' } });
  expect(capped.run({ type: 'subscription.resume', subscriptionId: cid, ...pricing, paySun: 900_000n })).toMatchObject({ body: { status: 'active' } });

  const daily = world(100_000_000n);
  const did = (daily.run(create(spec({ maxRefillsPerDay: 1 }))) as any).body.id;
  daily.run(refill(did));
  const o = [...daily.mem.orders.values()][0];
  daily.mem.orders.set(o.id, { ...o, status: 'active' });
  expect(daily.run(refill(did))).toMatchObject({ body: { status: 'suspended', reason: 'daily_limit_reached' } });
  expect(daily.run({ type: 'subscription.resume', subscriptionId: did, ...pricing })).toMatchObject({ body: { status: 'suspended' } });
  expect(daily.run({ type: 'subscription.resume', subscriptionId: did, ...pricing }, T0 + DAY)).toMatchObject({ body: { status: 'active', refills_today: 0 } });
});

test('PATCH pauses (subscription.paused, reason user) and resumes; DELETE ends; another account\'s is 404', () => {
  const { run } = world(100_000_000n);
  const id = (run(create(spec())) as any).body.id;
  const paused = run({ type: 'subscription.update', subscriptionId: id, changes: { thresholdAmount: 10_000 }, isPaused: true });
  expect(paused).toMatchObject({ body: { status: 'paused', reason: 'user', threshold_amount: 10_000 } });
  expect((paused as any).effects.events[0]).toMatchObject({ type: 'subscription.paused', data: { subscription_id: id, receiver: 'TRecv1', reason: 'user' } });
  expect(run(refill(id))).toMatchObject({ body: { refilled: false } });
  expect(run({ type: 'subscription.update', subscriptionId: id, changes: {}, isPaused: false })).toMatchObject({ body: { status: 'active', reason: null } });
  expect(run({ type: 'subscription.end', subscriptionId: id })).toMatchObject({ body: { status: 'ended' } });
  expect(run({ type: 'subscription.update', subscriptionId: id, changes: {}, isPaused: false })).toMatchObject({ kind: 'rejected', error: { slug: 'invalid_request' } });
  expect(run({ type: 'subscription.end', subscriptionId: 'sub_other' })).toMatchObject({ kind: 'rejected', error: { slug: 'not_found' } });
});

test('wire: int64 kept exact through the SubscriptionStep payload', () => {
  const body = { type: 'subscription.refill' as const, subscriptionId: 'sub_1', triggerAvailable: 5, ...pricing, paySun: 9_223_372_036_854_775_807n, supplier: 'pool' as const };
  expect(subscriptionStepFromWire(subscriptionStepToWire(body))).toEqual(body);
  const upd = { type: 'subscription.update' as const, subscriptionId: 'sub_1', changes: { maxPriceSun: 12n }, isPaused: null };
  expect(subscriptionStepFromWire(subscriptionStepToWire(upd))).toEqual(upd);
});

test('watcher rules: free resources, touched receivers, stable ids, in flight, resume', () => {
  expect(freeOf({ EnergyLimit: 65_000, EnergyUsed: 14_650, freeNetLimit: 600, freeNetUsed: 100, NetLimit: 0 })).toEqual({ energy: 50_350, bandwidth: 500 });
  expect(freeOf({})).toEqual({ energy: 0, bandwidth: 0 });
  const tx = (owner: string, to: string | null, receiver: string | null) => ({ txid: 'x', type: 't', contractRet: 'SUCCESS', owner, to, amountSun: null, contract: null, receiver, resource: null, balanceSun: null, memo: null });
  expect([...touchedBy({ number: 1, id: 'b', timestamp: 0, transactions: [tx('TA', 'TB', null), tx('TC', null, 'TD')] })].sort()).toEqual(['TA', 'TB', 'TC', 'TD']);

  const sub: Subscription = {
    ...spec(), id: 'sub_1', accountId: 'acc_1', clientSubscriptionId: null, requestHash: 'h', status: 'active', refillsToday: 0, refillDay: null,
    lastRefillAt: null, lastOrderId: null, reason: null, dailyFeeSun: null, nextBillingAt: null, createdAt: T0, updatedAt: T0,
  };
  const price = refillPrice(priceTable('nile'), sub)!;
  expect(price).toEqual({ priceSunPerUnit: 60n, paySun: 3_900_000n, durationSeconds: 3600 });
  expect(watchAction(sub, { energy: 30_000, bandwidth: 0 }, undefined, price, 10n ** 9n, T0)).toBeNull();
  const a = watchAction(sub, { energy: 29_999, bandwidth: 0 }, undefined, price, 10n ** 9n, T0);
  expect(a).toMatchObject({ kind: 'refill', free: 29_999 });
  // Read again later (a restarted watcher): the same id, so the processor applies it once.
  expect(watchAction(sub, { energy: 10, bandwidth: 0 }, undefined, price, 10n ** 9n, T0 + 5000)!.commandId).toBe(a!.commandId);
  expect(watchAction(sub, undefined, undefined, price, 10n ** 9n, T0)).toBeNull();
  const inFlight = { status: 'allocating' } as Order;
  expect(watchAction({ ...sub, lastOrderId: 'ord_1' }, { energy: 0, bandwidth: 0 }, inFlight, price, 10n ** 9n, T0)).toBeNull();
  const next = watchAction({ ...sub, lastOrderId: 'ord_1', updatedAt: T0 + 1 }, { energy: 0, bandwidth: 0 }, { status: 'active' } as Order, price, 10n ** 9n, T0);
  expect(next?.kind).toBe('refill');
  expect(next!.commandId).not.toBe(a!.commandId);
  const suspended = { ...sub, status: 'suspended' as const, reason: 'insufficient_funds' as const };
  expect(watchAction(suspended, { energy: 0, bandwidth: 0 }, undefined, price, 1n, T0)).toBeNull();
  expect(watchAction(suspended, { energy: 0, bandwidth: 0 }, undefined, price, 3_900_000n, T0)?.kind).toBe('resume');
});

test('plans: first day charged at creation (402 when it cannot be), daily in advance, paused billing_failed with the delegation taken back, unpause, end', () => {
  const plan = { priceSunPerUnit: 90n, dailyFeeSun: 3_600_000n, receiverActive: true, activateSun: 0n, supplier: 'pool' };
  const planSpec = spec({ kind: 'plan', tier: null, thresholdAmount: null, amount: 40_000 });
  const poor = world(1_000_000n);
  expect(poor.run({ ...create(planSpec), plan })).toMatchObject({ kind: 'rejected', error: { slug: 'insufficient_funds' } });
  expect(poor.mem.subs.size).toBe(0);

  const { run, mem, accounts } = world(10_000_000n);
  const created = run({ ...create(planSpec), plan }, T0) as any;
  expect(created).toMatchObject({ kind: 'applied', status: 201, body: { kind: 'plan', status: 'active', daily_fee_sun: 3_600_000n, next_billing_at: new Date(T0 + DAY).toISOString() } });
  const first = [...mem.orders.values()][0];
  expect(first).toMatchObject({ source: 'subscription', subscriptionId: created.body.id, tier: '1d', durationSeconds: 86_400, totalSun: 3_600_000n, memo: 'subscription plan day' });
  expect(created.effects.events.find((e: any) => e.type === 'subscription.charged').data).toEqual({
    subscription_id: created.body.id, receiver: 'TRecv1', plan: '40000 energy per day', amount_sun: 3_600_000n, next_billing_at: new Date(T0 + DAY).toISOString(),
  });
  const id = created.body.id;
  const charge = (billingAt: number, at: number) => run({ type: 'subscription.charge', subscriptionId: id, billingAt, ...plan }, at);
  // Not due at a stale billing instant; due: the next day. The previous day is kept: the watcher takes it
  // back once the new day is delivered (no gap).
  expect((charge(T0, T0 + DAY) as any).effects.orders).toBeUndefined();
  const second = charge(T0 + DAY, T0 + DAY + 5_000) as any;
  expect(second.body).toMatchObject({ status: 'active', next_billing_at: new Date(T0 + 2 * DAY).toISOString() });
  expect(second.effects.followUps.filter((c: any) => c.type === 'order.close')).toEqual([]);
  expect(accounts.get('acc_1')!.reservedSun).toBe(7_200_000n);
  // The third day cannot be paid: paused billing_failed, the current day's delegation taken back.
  const failed = charge(T0 + 2 * DAY, T0 + 2 * DAY) as any;
  expect(failed.body).toMatchObject({ status: 'paused', reason: 'billing_failed' });
  expect(failed.effects.events.map((e: any) => [e.type, e.data.reason])).toEqual([['subscription.paused', 'billing_failed']]);
  expect(failed.effects.followUps).toMatchObject([{ type: 'order.close', orderId: second.body.last_order_id }]);
  // Unpause with funds: the day charged again.
  accounts.set('acc_1', { ...accounts.get('acc_1')!, balanceSun: 20_000_000n });
  const back = run({ type: 'subscription.update', subscriptionId: id, changes: {}, isPaused: false, plan }, T0 + 2 * DAY + 60_000) as any;
  expect(back.body).toMatchObject({ status: 'active', reason: null, next_billing_at: new Date(T0 + 3 * DAY + 60_000).toISOString() });
  expect(back.effects.events.map((e: any) => e.type)).toContain('subscription.charged');
  // Reserve exhausted: the day's order failed.
  const dayOrder = mem.orders.get(back.body.last_order_id)!;
  mem.orders.set(dayOrder.id, { ...dayOrder, status: 'failed' });
  expect(run({ type: 'subscription.pause', subscriptionId: id, reason: 'reserve_exhausted', orderId: dayOrder.id })).toMatchObject({ body: { status: 'paused', reason: 'reserve_exhausted' } });
  const ended = run({ type: 'subscription.end', subscriptionId: id }) as any;
  expect(ended.body.status).toBe('ended');
  expect(ended.effects.followUps).toEqual([]);

  // A live plan ended: its delegation is taken back.
  const other = world(10_000_000n);
  const pid = (other.run({ ...create(planSpec), plan }) as any).body.id;
  expect((other.run({ type: 'subscription.end', subscriptionId: pid }) as any).effects.followUps).toMatchObject([{ type: 'order.close', reason: 'reclaimed' }]);
});

test('watcher plan rules: charge when due with a stable id, reserve_exhausted on a failed day', () => {
  const plan: Subscription = {
    ...spec({ kind: 'plan', tier: null, thresholdAmount: null }), id: 'sub_p', accountId: 'acc_1', clientSubscriptionId: null, requestHash: 'h', status: 'active',
    refillsToday: 0, refillDay: null, lastRefillAt: null, lastOrderId: 'ord_1', reason: null, dailyFeeSun: 1n, nextBillingAt: T0 + DAY, createdAt: T0, updatedAt: T0,
  };
  expect(planAction(plan, { id: 'ord_1', status: 'active' } as Order, T0 + 1000)).toBeNull();
  const due = planAction(plan, { id: 'ord_1', status: 'active' } as Order, T0 + DAY);
  expect(due).toMatchObject({ kind: 'charge', billingAt: T0 + DAY });
  expect(planAction(plan, { id: 'ord_1', status: 'active' } as Order, T0 + DAY + 9_000)!.commandId).toBe(due!.commandId);
  expect(planAction(plan, { id: 'ord_1', status: 'failed' } as Order, T0)).toMatchObject({ kind: 'reserve_exhausted', orderId: 'ord_1' });
  expect(planAction({ ...plan, status: 'paused' }, undefined, T0 + DAY)).toBeNull();
});

test('a plan day is checked against the stake before charging: covered by the split the broadcaster makes, or not', async () => {
  // 10 energy per staked TRX; two addresses with 3,000 and 2,000 TRX delegatable.
  const sizes: Record<string, number> = { TA: 3_000_000_000, TB: 2_000_000_000 };
  const reader = {
    call: async (_view: string, path: string, payload: Record<string, unknown>) => (path === 'getaccountresource'
      ? { TotalEnergyLimit: 1_000_000, TotalEnergyWeight: 100_000 }
      : { max_size: sizes[payload.owner_address as string] }),
  } as any;
  expect(await stakeCovers(reader, ['TA', 'TB'], 'energy', 50_000, null)).toBe(true);
  expect(await stakeCovers(reader, ['TA', 'TB'], 'energy', 50_010, null)).toBe(false);
  expect(await stakeCovers(reader, ['TA'], 'energy', 40_000, null)).toBe(false);
});

test('watcher: the head read when the next block is due, the head block used as the block (blocks before it in one range read), a slower older read never overwriting a newer one', async () => {
  const { SubscriptionWatcher } = await import('../../services/subscriptions/watcher');
  const { ChainReader } = await import('../../services/chain/reads');
  const { TronWeb } = await import('tronweb');
  const ownerHex = `41${'11'.repeat(20)}`;
  const receiver = TronWeb.address.fromHex(ownerHex);
  const block = (number: number, timestamp: number, owner: string | null = null) => ({
    blockID: `b${number}`, block_header: { raw_data: { number, timestamp } },
    transactions: owner ? [{ txID: `t${number}`, ret: [{ contractRet: 'SUCCESS' }], raw_data: { contract: [{ type: 'TriggerSmartContract', parameter: { value: { owner_address: owner } } }] } }] : [],
  });
  let head = block(10, 100_000);
  const calls: string[] = [];
  // getaccountresource answers wait for their release: the test decides which of two reads finishes first.
  const reads: Array<{ release: (energy: number) => void }> = [];
  const chain = Object.assign(Object.create(ChainReader.prototype), {
    call: async (_view: string, path: string) => {
      calls.push(path);
      if (path === 'getnowblock') return head;
      if (path === 'getblockbylimitnext') return { block: [block(13, 103_000), block(12, 102_000)] };
      if (path === 'getaccountresource') return { EnergyLimit: await new Promise<number>((release) => reads.push({ release })) };
      throw new Error(`unexpected ${path}`);
    },
  });
  const pool = {
    query: async (sql: string) => {
      if (sql.startsWith('SELECT block_number')) return { rows: [{ block_number: '9' }] };
      if (sql.startsWith('SELECT receiver, resource, threshold_amount')) return { rows: [{ receiver, resource: 'energy', threshold_amount: '0' }] };
      return { rows: [] };
    },
  };
  const cfg = { CHAIN_POLL_MS: 500, SUBSCRIPTION_HEAD_POLL_MS: 50 } as any;
  const clock = { now: () => 0, realDelay: (ms: number) => ms } as any;
  const w = new SubscriptionWatcher({ cfg, pool: pool as any, bus: { append: async () => {} }, clock, reader: chain, prices: priceTable('nile') });
  const until = async (check: () => boolean) => {
    while (!check()) await new Promise((r) => setImmediate(r));
  };

  // Block 10 follows the stored position 9: the head read is the block (no getblockbynum).
  await w.followHead();
  expect(calls).toEqual(['getnowblock']);
  expect(w.nextReadInMs(100_200)).toBe(500);
  // Block 11, a second later, names the receiver: read again. Meanwhile a full pass reads it too (never read
  // yet) and its read, sent later, answers first: the head loop's older answer must not replace it.
  head = block(11, 101_000, ownerHex);
  const following = w.followHead();
  await until(() => reads.length === 1);
  const full = w.fullPass();
  await until(() => reads.length === 2);
  reads[1].release(30_000);
  await full;
  reads[0].release(40_000);
  await following;
  expect(calls.filter((c) => c === 'getblockbynum')).toEqual([]);
  expect((w as any).free.get(receiver)).toEqual({ energy: 30_000, bandwidth: 0 });

  // The interval is known: the next read when block 12 is due, then every SUBSCRIPTION_HEAD_POLL_MS.
  expect(w.nextReadInMs(101_200)).toBe(500);
  expect(w.nextReadInMs(101_700)).toBe(300);
  expect(w.nextReadInMs(101_980)).toBe(50);
  expect(w.nextReadInMs(102_400)).toBe(50);
  // More than an interval overdue (the chain stalled, or its clock is not ours): back to the poll.
  expect(w.nextReadInMs(103_500)).toBe(500);

  // Three blocks behind: the two before the head in one range read, none by number.
  calls.length = 0;
  head = block(14, 104_000);
  await w.followHead();
  expect(calls).toEqual(['getnowblock', 'getblockbylimitnext']);
  expect(w.applied.map((a) => a.block)).toEqual([10, 11, 12, 13, 14]);
});

test('watcher: with nothing watched the head loop reads only the header, moves the position to it and waits a full pass; a subscription found wakes it to follow blocks from there', async () => {
  const { SubscriptionWatcher } = await import('../../services/subscriptions/watcher');
  const { ChainReader } = await import('../../services/chain/reads');
  const header = (number: number, timestamp: number) => ({ blockID: `b${number}`, block_header: { raw_data: { number, timestamp } } });
  let head = header(10, 100_000);
  const calls: string[] = [];
  const chain = Object.assign(Object.create(ChainReader.prototype), {
    call: async (_view: string, path: string, payload: { detail?: boolean }) => {
      calls.push(path === 'getblock' && payload?.detail === false ? 'getblock (header)' : path);
      if (path === 'getblock') return head;
      if (path === 'getnowblock') return { ...head, transactions: [] };
      if (path === 'getaccountresource') return { EnergyLimit: 1 };
      return { block: [] };
    },
  });
  const saved: number[] = [];
  let watched: unknown[] = [];
  const pool = {
    query: async (sql: string, params: unknown[]) => {
      if (sql.startsWith('SELECT block_number')) return { rows: [{ block_number: '3' }] };
      if (sql.includes('INSERT INTO subscription_watcher_position')) saved.push(params[1] as number);
      if (sql.startsWith('SELECT receiver, resource, threshold_amount')) return { rows: watched };
      return { rows: [] };
    },
  };
  const cfg = { CHAIN_POLL_MS: 500, SUBSCRIPTION_HEAD_POLL_MS: 50 } as any;
  const clock = { now: () => 0, realDelay: (ms: number) => ms } as any;
  const w = new SubscriptionWatcher({ cfg, pool: pool as any, bus: { append: async () => {} }, clock, reader: chain, prices: priceTable('nile') });

  await w.followHead();
  expect(calls).toEqual(['getblock (header)']);
  expect(saved).toEqual([10]);
  expect(w.nextReadInMs(100_100)).toBe(3000);
  head = header(12, 102_000);
  await w.followHead();
  expect(saved).toEqual([10, 12]);

  // A refill appears: the full pass wakes the head loop, which follows the blocks after the position again.
  watched = [{ receiver: 'TReceiver', resource: 'energy', threshold_amount: '100' }];
  const woken = jest.fn();
  (w as any).loops = [{ wake: woken }];
  await w.fullPass();
  expect(woken).toHaveBeenCalledTimes(1);
  expect(w.nextReadInMs(102_100)).toBeLessThanOrEqual(500);
  calls.length = 0;
  head = header(13, 103_000);
  await w.followHead();
  expect(calls).toEqual(['getnowblock']);
  expect(saved).toEqual([10, 12, 13]);
});
