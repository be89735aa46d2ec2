/**
 * Account stats from the order-events log, on the real stack: orders placed at chosen times go through
 * the processor, the outbox and the relay onto order-events; the stats role projects them; GET
 * /v1/account/stats answers from the projection. Counting rules, local days and hours at -300 and +330,
 * range edges, the 13-month clamp, 2001, who may read, CSV; the example consumer decodes every record with
 * the registry alone; duplicates on the topic change nothing; drop and rebuild gives identical answers; the
 * whole days kept between reads (services/stats/read-cache.ts) are read again once the projection moves.
 */
import { spawn } from 'node:child_process';
import { SchemaRegistry } from '@kafkajs/confluent-schema-registry';
import path from 'node:path';
import { replayAndVerify } from '../../../services/ops/replay';
import type { Stoppable } from '../../../services/roles';
import { startRoles } from '../../../services/roles';
import { stringifyJson } from '../../../services/platform/json';
import { accountStats, planFor, resolveRange, type StatsRange } from '../../../services/stats/account-stats';
import { CACHED_RECEIVERS, wholePartCacheFor } from '../../../services/stats/read-cache';
import { readStatsInput } from '../../../services/stats/store';
import { call, newWallet, sessionHeaders, signIn, signUp, startIdentityStack, type Customer, type IdentityStack } from '../../support/identity';
import { applyAt, signedGet, statsCaughtUp } from '../../support/stats';
import { eventually, templateReplay } from '../../support/world';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const root = path.resolve(__dirname, '../../..');

let stack: IdentityStack;
let roles: Stoppable[];
let owner: Customer;
/** UTC midnight five days ago: the orders below sit on D, D+1 and D+3; D+2 has none. */
let D: number;
const orderIds: Record<string, string> = {};

const iso = (ms: number) => new Date(ms).toISOString();
const dateOf = (ms: number) => iso(ms).slice(0, 10);
/** ISO weekday index (Monday 0) of a UTC date. */
const weekdayOf = (ms: number) => (new Date(ms).getUTCDay() + 6) % 7;

const create = (body: Record<string, unknown>) => ({
  type: 'order.create' as const, clientOrderId: null, idempotencyKey: null, requestHash: `h${Math.random()}`, resource: 'energy' as const, amount: 65_000,
  tier: '5m', durationSeconds: 300, receiver: 'TQ4iYRqJ3mdBzUZq1a4pg8x7TmxGqPNK4u', receiverActive: true, activate: null, maxPriceSun: null, quoteId: null,
  quoteExpiresAt: null, priceSunPerUnit: 40n, paySun: 2_600_000n, activateSun: 0n, source: 'api', memo: null, supplier: 'pool' as const, ...body,
});
const delegateTx = (txId: string, amount: number) => ({ kind: 'delegate' as const, from: 'TPool', amount, sun: 1_000_000n, txId, signedTx: '{}' });

async function placeOrder(name: string, at: number, body: Record<string, unknown>, steps: Array<(id: string) => Record<string, unknown>>): Promise<void> {
  const created = await applyAt(stack, at, create(body) as never);
  orderIds[name] = created.id;
  let t = at;
  let settled = false;
  for (const step of steps) {
    // A settled rental becomes active by the processor's own follow-up command, a round trip through the log:
    // a step after it (o3's refund) waits for it, or it could overtake it.
    if (settled) await eventually(async () => (await stack.rt.pool.query('SELECT status FROM orders WHERE id = $1', [created.id])).rows[0]?.status === 'active' || undefined, 30_000, `${name} active`);
    const command = { accountId: owner.accountId, ...step(created.id) } as Record<string, any>;
    await applyAt(stack, (t += 60_000), command as never);
    settled = command.type === 'order.settle' && command.landedTxIds.length > 0;
  }
}

const allocate = (...txs: Array<ReturnType<typeof delegateTx>>) => (orderId: string) => ({ type: 'order.allocate', orderId, txs, ratioLimit: 1n, ratioWeight: 1n });
const settle = (...landed: string[]) => (orderId: string) => ({ type: 'order.settle', orderId, landedTxIds: landed, deliveredAt: D + DAY });
const refund = () => (orderId: string) => ({ type: 'order.refund', orderId, reason: 'incident_credit' });

async function stats(query: string, customer = owner) {
  return signedGet(stack.base, customer.key, `/v1/account/stats${query}`);
}

beforeAll(async () => {
  stack = await startIdentityStack('stats');
  roles = await startRoles(stack.rt, ['stats']);
  owner = await signUp(stack.base);
  const funded = await stack.bus.submit({ type: 'balance.adjust', accountId: owner.accountId, amountSun: 100_000_000n, memo: 'stats test' });
  expect(funded.outcome).toBe('applied');
  D = Math.floor(Date.now() / DAY) * DAY - 5 * DAY;
  const a = { accountId: owner.accountId };
  // o1: partial delivery, 40,000 of 65,000 at 40 SUN/unit: spent 2,600,000 - 1,000,000 refunded.
  await placeOrder('o1', D + 2 * HOUR, { ...a, receiver: 'TReceiverA' }, [allocate(delegateTx('a1', 40_000), delegateTx('a2', 25_000)), settle('a1')]);
  // o2: 100,000 at 50 SUN/unit, delivered.
  await placeOrder('o2', D + 23.5 * HOUR, { ...a, receiver: 'TReceiverA', amount: 100_000, priceSunPerUnit: 50n, paySun: 5_000_000n }, [allocate(delegateTx('b1', 100_000)), settle('b1')]);
  // o3: delivered, then refunded: an order, no energy, nothing spent.
  await placeOrder('o3', D + DAY + 4 * HOUR, { ...a, receiver: 'TReceiverB' }, [allocate(delegateTx('c1', 65_000)), settle('c1'), refund()]);
  // o4: no delegation landed: failed, charge reversed.
  await placeOrder('o4', D + DAY + 5 * HOUR, { ...a, receiver: 'TReceiverB' }, [allocate(delegateTx('d1', 65_000)), settle()]);
  // o5: an activation order: 1,000,000 spent, no energy.
  await placeOrder('o5', D + 3 * DAY + 12 * HOUR, {
    ...a, receiver: 'TReceiverC', resource: 'activation', amount: null, tier: null, durationSeconds: null, receiverActive: false, priceSunPerUnit: null, paySun: 0n, activateSun: 1_000_000n,
  }, [allocate({ ...delegateTx('e1', 0), kind: 'activate' as never }), settle('e1')]);
  // o6: still allocating: an order, its reserved total counted as spent, no energy yet.
  await placeOrder('o6', D + 3 * DAY + 18.75 * HOUR, { ...a, receiver: 'TReceiverC' }, []);
  await statsCaughtUp(stack);
}, 180_000);

afterAll(async () => {
  await Promise.allSettled(roles.map((r) => r.stop()));
  // The world's log must rebuild its database exactly, order-events outbox rows included.
  const report = await replayAndVerify(stack.rt, templateReplay);
  await stack.rt.log.deleteTopics(Object.values(stack.rt.codec.topics).map((t) => t.topic)).catch(() => undefined);
  await stack.stop();
  expect(report.tables.filter((t) => t.differences.length > 0)).toEqual([]);
});

test('order-events carries every transition of every order, in order, with the whole order', async () => {
  const topic = stack.rt.codec.topicName('orderEvents');
  const byOrder = new Map<string, Array<{ type: string; status: string; key: string }>>();
  await stack.rt.log.scan(topic, await stack.rt.log.endOffsets(topic), async (batch) => {
    for (const r of batch.records) {
      const e = await stack.rt.codec.decodeOrderEvent(r.value!);
      const list = byOrder.get(e.order.id as string) ?? [];
      list.push({ type: e.type, status: e.order.status as string, key: r.key!.toString('latin1') });
      byOrder.set(e.order.id as string, list);
    }
  });
  const types = (name: string) => byOrder.get(orderIds[name])?.map((e) => e.type);
  expect(types('o1')).toEqual(['order.created', 'order.allocated', 'order.confirmed', 'order.active']);
  expect(types('o3')).toEqual(['order.created', 'order.allocated', 'order.confirmed', 'order.active', 'order.refunded']);
  expect(types('o4')).toEqual(['order.created', 'order.allocated', 'order.failed']);
  expect(types('o5')).toEqual(['order.created', 'order.allocated', 'order.confirmed']);
  expect(types('o6')).toEqual(['order.created']);
  expect(byOrder.get(orderIds.o1)?.map((e) => e.status)).toEqual(['allocating', 'allocating', 'confirmed', 'active']);
  // Keyed by account.
  expect(byOrder.get(orderIds.o1)?.every((e) => e.key.includes(owner.accountId))).toBe(true);

  // Every field contract.md section 10 names, as an outside consumer decodes it with the registry alone.
  const registry = new SchemaRegistry({ host: stack.rt.cfg.SCHEMA_REGISTRY_URL });
  const contractTypes = new Set(['order.created', 'order.allocated', 'order.confirmed', 'order.active', 'order.expired', 'order.reclaimed', 'order.failed', 'order.refunded']);
  let checked = 0;
  await stack.rt.log.scan(topic, await stack.rt.log.endOffsets(topic), async (batch) => {
    for (const r of batch.records) {
      const raw = await registry.decode(r.value!);
      expect(Object.keys(raw)).toEqual(expect.arrayContaining(['event_id', 'type', 'occurred_at', 'account_id', 'network', 'order']));
      expect(contractTypes.has(raw.type)).toBe(true);
      expect(raw.network).toBe('nile');
      expect(raw.account_id).toBe(raw.order.account_id);
      expect(Object.keys(raw.order)).toEqual(expect.arrayContaining([
        'id', 'status', 'source', 'batch_id', 'subscription_id', 'price_sun_per_unit', 'pay_amount_sun', 'activate_amount_sun', 'total_amount_sun', 'refunded_amount_sun', 'created_at',
      ]));
      expect(Number.isNaN(Date.parse(raw.order.created_at))).toBe(false);
      checked += 1;
    }
  });
  expect(checked).toBeGreaterThanOrEqual(18);
  const o1 = (await registry.decode((await firstRecordOf(topic, orderIds.o1))!)).order;
  expect(o1).toMatchObject({ source: 'api', batch_id: null, subscription_id: null, price_sun_per_unit: 40, pay_amount_sun: 2_600_000, activate_amount_sun: 0, total_amount_sun: 2_600_000 });
});

/** The first order-events record of an order. */
async function firstRecordOf(topic: string, orderId: string): Promise<Buffer | undefined> {
  let found: Buffer | undefined;
  await stack.rt.log.scan(topic, await stack.rt.log.endOffsets(topic), async (batch) => {
    for (const r of batch.records) if (!found && (await stack.rt.codec.decodeOrderEvent(r.value!)).order.id === orderId) found = r.value!;
  });
  return found;
}

test('counting rules, a zero day, top receivers and the weighted average price', async () => {
  const res = await stats(`?from=${iso(D)}&to=${iso(D + 4 * DAY)}`);
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ from: iso(D), to: iso(D + 4 * DAY), requested_from: iso(D), clamped: false, retention_months: 13, bucket: 'day', utc_offset_minutes: 0 });
  expect(res.body.series).toEqual([
    { date: dateOf(D), orders: 2, energy: 140_000, spent_sun: 6_600_000 },
    { date: dateOf(D + DAY), orders: 2, energy: 0, spent_sun: 0 },
    { date: dateOf(D + 2 * DAY), orders: 0, energy: 0, spent_sun: 0 },
    { date: dateOf(D + 3 * DAY), orders: 2, energy: 0, spent_sun: 3_600_000 },
  ]);
  // (40 x 40,000 + 50 x 100,000) / 140,000 x 65,000 = 3,064,285.7 -> 3,064,286
  expect(res.body.totals).toEqual({ orders: 6, energy: 140_000, spent_sun: 10_200_000, avg_price_sun_per_65k: 3_064_286 });
  expect(res.body.top_receivers).toEqual([
    { receiver: 'TReceiverA', orders: 2, energy: 140_000, spent_sun: 6_600_000 },
    { receiver: 'TReceiverC', orders: 2, energy: 0, spent_sun: 3_600_000 },
    { receiver: 'TReceiverB', orders: 2, energy: 0, spent_sun: 0 },
  ]);
  const grid = res.body.weekday_hour as number[][];
  expect(grid).toHaveLength(7);
  expect(grid.every((row) => row.length === 24)).toBe(true);
  expect(grid[weekdayOf(D)][2]).toBe(1);
  expect(grid[weekdayOf(D)][23]).toBe(1);
  expect(grid[weekdayOf(D + 3 * DAY)][18]).toBe(1);
  expect(grid.flat().reduce((a, b) => a + b, 0)).toBe(6);

  // [from, to): an order exactly at `from` counts, one exactly at `to` does not.
  const edge = await stats(`?from=${iso(D + 2 * HOUR)}&to=${iso(D + 23.5 * HOUR)}`);
  expect(edge.body.totals).toEqual({ orders: 1, energy: 40_000, spent_sun: 1_600_000, avg_price_sun_per_65k: 2_600_000 });
  const none = await stats(`?from=${iso(D + 2 * DAY)}&to=${iso(D + 3 * DAY)}`);
  expect(none.body.totals).toEqual({ orders: 0, energy: 0, spent_sun: 0, avg_price_sun_per_65k: null });
});

test('utc_offset_minutes -300 and +330 move orders across days and hours', async () => {
  const range = `from=${iso(D - DAY)}&to=${iso(D + 5 * DAY)}`;
  const west = await stats(`?${range}&utc_offset_minutes=-300`);
  expect(west.status).toBe(200);
  expect(west.body.utc_offset_minutes).toBe(-300);
  const westDays = Object.fromEntries((west.body.series as any[]).map((s) => [s.date, s.orders]));
  // o1 02:00 -> 21:00 the day before; o2 23:30 -> 18:30; o3 04:00 -> 23:00 the day before; o4 05:00 -> 00:00; o5 -> 07:00; o6 18:45 -> 13:45.
  expect(westDays).toEqual({
    [dateOf(D - 2 * DAY)]: 0, [dateOf(D - DAY)]: 1, [dateOf(D)]: 2, [dateOf(D + DAY)]: 1, [dateOf(D + 2 * DAY)]: 0, [dateOf(D + 3 * DAY)]: 2, [dateOf(D + 4 * DAY)]: 0,
  });
  const wg = west.body.weekday_hour as number[][];
  expect(wg[weekdayOf(D - DAY)][21]).toBe(1);
  expect(wg[weekdayOf(D)][18] + wg[weekdayOf(D)][23]).toBe(2);
  expect(wg[weekdayOf(D + DAY)][0]).toBe(1);
  expect(wg[weekdayOf(D + 3 * DAY)][7]).toBe(1);
  expect(wg[weekdayOf(D + 3 * DAY)][13]).toBe(1);

  const east = await stats(`?${range}&utc_offset_minutes=330`);
  const eastDays = Object.fromEntries((east.body.series as any[]).map((s) => [s.date, s.orders]));
  // o1 -> 07:30; o2 -> 05:00 next day; o3 -> 09:30; o4 -> 10:30; o5 -> 17:30; o6 -> 00:15 next day.
  expect(eastDays).toEqual({
    [dateOf(D - DAY)]: 0, [dateOf(D)]: 1, [dateOf(D + DAY)]: 3, [dateOf(D + 2 * DAY)]: 0, [dateOf(D + 3 * DAY)]: 1, [dateOf(D + 4 * DAY)]: 1, [dateOf(D + 5 * DAY)]: 0,
  });
  const eg = east.body.weekday_hour as number[][];
  expect(eg[weekdayOf(D)][7]).toBe(1);
  expect(eg[weekdayOf(D + DAY)][5]).toBe(1);
  expect(eg[weekdayOf(D + DAY)][9]).toBe(1);
  expect(eg[weekdayOf(D + DAY)][10]).toBe(1);
  expect(eg[weekdayOf(D + 3 * DAY)][17]).toBe(1);
  expect(eg[weekdayOf(D + 4 * DAY)][0]).toBe(1);
  // Energy follows its order into the shifted day: o2's 100,000 lands on D+1 local at +330.
  expect((east.body.series as any[]).find((s) => s.date === dateOf(D + DAY)).energy).toBe(100_000);
  expect(east.body.totals).toEqual(west.body.totals);
});

test('defaults, 13-month clamp, 2001 and bad input', async () => {
  const plain = await stats('');
  expect(plain.status).toBe(200);
  const to = Date.parse(plain.body.to);
  expect(Math.abs(to - Date.now())).toBeLessThan(60_000);
  expect(Date.parse(plain.body.from)).toBe(to - 30 * DAY);
  expect(plain.body.series).toHaveLength(dateOf(to) === dateOf(to - 30 * DAY) ? 30 : 31);
  expect(plain.body.totals.orders).toBe(6);

  const old = new Date();
  old.setUTCMonth(old.getUTCMonth() - 20);
  const clamped = await stats(`?from=${iso(old.getTime())}`);
  expect(clamped.status).toBe(200);
  expect(clamped.body).toMatchObject({ clamped: true, requested_from: iso(old.getTime()), retention_months: 13 });
  const start = new Date();
  start.setUTCMonth(start.getUTCMonth() - 13);
  expect(Math.abs(Date.parse(clamped.body.from) - start.getTime())).toBeLessThan(60_000);
  expect(clamped.body.series.length).toBeGreaterThanOrEqual(393);
  expect(clamped.body.totals.orders).toBe(6);

  for (const q of [`?from=${iso(D)}&to=${iso(D)}`, `?from=${iso(D + DAY)}&to=${iso(D)}`]) {
    const bad = await stats(q);
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 2001, slug: 'invalid_range' });
  }
  expect((await stats('?utc_offset_minutes=5000')).body.error.code).toBe(2000);
  expect((await stats('?bucket=hour')).body.error.code).toBe(2000);
  expect((await stats('?from=yesterday')).body.error.code).toBe(2000);
});

test('a viewer session may read; a key without orders.read gets 1015; no credentials 401', async () => {
  const viewer = await newWallet();
  const ownerSession = await signIn(stack.base, owner.wallet);
  const added = await call(stack.base, 'POST', '/v1/account/members', { body: { address: viewer.address, role: 'viewer' }, headers: sessionHeaders(ownerSession) });
  expect(added.status).toBe(201);
  const session = await signIn(stack.base, viewer, owner.accountId);
  const path = `/v1/account/stats?from=${iso(D)}&to=${iso(D + 4 * DAY)}`;
  const [asViewer, asKey] = await Promise.all([call(stack.base, 'GET', path, { headers: sessionHeaders(session, false) }), stats(`?from=${iso(D)}&to=${iso(D + 4 * DAY)}`)]);
  expect(asViewer.status).toBe(200);
  expect(asViewer.body).toEqual(asKey.body);

  const narrow = await signUp(stack.base, ['balance.read', 'orders.write']);
  const refused = await stats('', narrow);
  expect(refused.status).toBe(403);
  expect(refused.body.error).toMatchObject({ code: 1015, slug: 'scope_missing', details: { scope: 'orders.read' } });
  expect((await call(stack.base, 'GET', '/v1/account/stats')).status).toBe(401);
});

test('format=csv is the series', async () => {
  const q = `?from=${iso(D)}&to=${iso(D + 4 * DAY)}&utc_offset_minutes=-300`;
  const [json, csv] = await Promise.all([stats(q), stats(`${q}&format=csv`)]);
  expect(csv.status).toBe(200);
  expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
  const lines = csv.text.trimEnd().split('\r\n');
  expect(lines[0]).toBe('date,orders,energy,spent_sun');
  expect(lines.slice(1)).toEqual((json.body.series as any[]).map((s) => `${s.date},${s.orders},${s.energy},${s.spent_sun}`));
});

function runExample(): Promise<any> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(root, 'examples/order-events-tally.mjs'), '--until-end'], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', KAFKA_BROKERS: stack.rt.cfg.KAFKA_BROKERS, SCHEMA_REGISTRY_URL: stack.rt.cfg.SCHEMA_REGISTRY_URL, ORDER_EVENTS_TOPIC: stack.rt.codec.topicName('orderEvents') },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code !== 0) reject(new Error(`example exited ${code}: ${err}`));
      else resolve(JSON.parse(out.trim().split('\n').pop() as string));
    });
  });
}

test('the example consumer decodes every record with the registry alone; duplicates change nothing; drop and rebuild answers the same', async () => {
  const topic = stack.rt.codec.topicName('orderEvents');
  const total = async () => [...(await stack.rt.log.endOffsets(topic)).values()].reduce((a, b) => a + Number(b), 0);
  const { rows } = await stack.rt.pool.query("SELECT count(*)::int AS n FROM outbox WHERE destination = 'order-events'");
  const first = await runExample();
  expect(first.records).toBe(await total());
  expect(first.events).toBe(rows[0].n);
  expect(first.accounts[owner.accountId]).toEqual({ orders: 6, energy: 140_000, spent_sun: 10_200_000 });

  const queries = [`?from=${iso(D)}&to=${iso(D + 4 * DAY)}`, `?from=${iso(D - DAY)}&to=${iso(D + 5 * DAY)}&utc_offset_minutes=330`, `?from=${iso(D - DAY)}&to=${iso(D + 5 * DAY)}&utc_offset_minutes=-300`];
  const before = await Promise.all(queries.map((q) => stats(q)));

  // The relay publishes every row again (as after a crash between send and mark), order events among them: same event ids.
  await stack.rt.pool.query('DELETE FROM outbox_cursors');
  await statsCaughtUp(stack);
  expect(await total()).toBe(2 * rows[0].n);
  const again = await runExample();
  expect(again.records).toBe(2 * rows[0].n);
  expect(again.events).toBe(rows[0].n);
  expect(again.accounts[owner.accountId]).toEqual(first.accounts[owner.accountId]);
  const afterDuplicates = await Promise.all(queries.map((q) => stats(q)));
  expect(afterDuplicates.map((r) => r.body)).toEqual(before.map((r) => r.body));

  // ./bin/ops rebuild-stats while the stats role runs: progress on stderr, the same answers after.
  const digest = async () => Promise.all(['stats_orders', 'stats_days', 'stats_grid_monthly', 'stats_receiver_daily', 'stats_receiver_monthly'].map(async (table) =>
    (await stack.rt.pool.query(`SELECT count(*)::int AS n, md5(coalesce(string_agg(x::text, ',' ORDER BY x::text), '')) AS h FROM ${table} x`)).rows[0]));
  const tablesBefore = await digest();
  expect(tablesBefore[0].n).toBe(6);
  const cli = await new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
    const child = spawn(path.join(root, 'bin/ops'), ['rebuild-stats'], { cwd: root, env: stack.world.env });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => resolve({ code, out, err }));
  });
  expect(cli.code).toBe(0);
  expect(cli.err).toMatch(/projected \d+\/\d+ records/);
  expect(cli.out).toMatch(/rebuilt stats from \d+ records/);
  await statsCaughtUp(stack);
  const after = await Promise.all(queries.map((q) => stats(q)));
  expect(after.map((r) => r.body)).toEqual(before.map((r) => r.body));
  expect(await digest()).toEqual(tablesBefore);
});

test('the whole days kept between reads follow the projection: a new order on a past day is in the next answer', async () => {
  const cache = wholePartCacheFor(stack.rt.pool);
  const other = await signUp(stack.base);
  expect((await stack.bus.submit({ type: 'balance.adjust', accountId: other.accountId, amountSun: 100_000_000n, memo: 'stats cache test' })).outcome).toBe('applied');
  const a = { accountId: other.accountId, receiver: 'TReceiverX' };
  // p1 in the partial first day of the range (read from the orders every time), p2 later on a whole day (from the kept part).
  await placeOrder('p1', D + HOUR, a, []);
  await statsCaughtUp(stack);
  const q = `?from=${iso(D + HOUR / 2)}&to=${iso(D + 4 * DAY)}&utc_offset_minutes=330`;
  const read = async () => {
    const res = await stats(q, other);
    expect(res.status).toBe(200);
    return res.body;
  };
  const first = await read();
  expect(first.totals).toEqual({ orders: 1, energy: 0, spent_sun: 2_600_000, avg_price_sun_per_65k: null });
  const hits = cache.hits;
  expect(await read()).toEqual(first);
  expect(cache.hits).toBe(hits + 1);

  await placeOrder('p2', D + 2 * DAY + 3 * HOUR, a, []);
  await statsCaughtUp(stack);
  const misses = cache.misses;
  const second = await read();
  expect(cache.misses).toBe(misses + 1);
  expect(second.totals).toEqual({ orders: 2, energy: 0, spent_sun: 5_200_000, avg_price_sun_per_65k: null });
  // One receiver, its orders from the partial day and from the whole days added together.
  expect(second.top_receivers).toEqual([{ receiver: 'TReceiverX', orders: 2, energy: 0, spent_sun: 5_200_000 }]);
  // 03:00 UTC is 08:30 at +330.
  expect((second.series as any[]).find((s) => s.date === dateOf(D + 2 * DAY)).orders).toBe(1);
  expect((second.weekday_hour as number[][])[weekdayOf(D + 2 * DAY)][8]).toBe(1);
  expect(await read()).toEqual(second);
  expect(cache.hits).toBe(hits + 2);
});

test('an account with more receivers than are kept: its top receivers are ranked in SQL on every read', async () => {
  const account = 'acc_statsmanyreceivers';
  const now = Date.now();
  const month = Date.UTC(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth() - 1, 1);
  const from = Date.UTC(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth() - 2, 1) + 12 * HOUR;
  const n = CACHED_RECEIVERS + 5;
  // Receiver R<i> has i + 1 orders in the whole month before this one; R<n - 11> one more in the partial
  // first day of the range, with energy, so it ties R<n - 10> on orders and ranks before it (tenth).
  await stack.rt.pool.query(
    `INSERT INTO stats_receiver_monthly (account_id, month_ms, receiver, orders, energy, spent_sun)
      SELECT $1, $2, 'R' || i, i + 1, 0, 0 FROM generate_series(0, $3 - 1) i`, [account, month, n]);
  await stack.rt.pool.query('INSERT INTO stats_orders VALUES ($1, $2, $3, $4, 10, 0, 0)', [account, from + HOUR, 'ord_statsmany', `R${n - 11}`]);
  await stack.rt.pool.query('INSERT INTO stats_account_versions VALUES ($1, 1)', [account]);
  const cache = wholePartCacheFor(stack.rt.pool);
  const expected = [...Array.from({ length: 9 }, (_, k) => n - 1 - k).map((i) => ({ receiver: `R${i}`, orders: i + 1, energy: 0, spent_sun: 0 })), { receiver: `R${n - 11}`, orders: n - 9, energy: 10, spent_sun: 0 }];
  for (let read = 0; read < 2; read++) {
    const range = resolveRange({ from, to: now }, now) as StatsRange;
    const hits = cache.hits;
    const answer = accountStats(range, await readStatsInput(stack.rt.pool, account, planFor(range), 0));
    expect(cache.hits).toBe(hits);
    expect(JSON.parse(stringifyJson(answer.top_receivers))).toEqual(expected);
    // Totals come from the days: this account has only the one order on the partial day.
    expect((answer.totals as { orders: number }).orders).toBe(1);
  }
});
