/**
 * Webhook delivery on the real stack: credits go through the pipeline (command → processor → outbox →
 * relay → account-events) to the dispatcher, which delivers them to real HTTPS receivers on loopback.
 * The clock runs 20 times faster: the 10 s answer limit is 500 ms, raised to the real floor of
 * 1,000 ms (services/dispatcher/dispatcher.ts), the 15 s retry 750 ms.
 */
import { randomUUID } from 'node:crypto';
import type { CommandBus } from '../../../services/platform/command-bus';
import type { Runtime } from '../../../services/runtime';
import { inTransaction } from '../../../services/platform/db/pool';
import { parseJson } from '../../../services/platform/json';
import { insertDeliveries, type IncomingEvent } from '../../../services/dispatcher/store';
import { webhookEventTypes } from '../../../services/webhooks/event-types';
import { verifySignature } from '../../../services/webhooks/signing';
import { sendAttempt } from '../../../services/webhooks/http-client';
import { testCa, type ReceivedRequest, type Receiver } from '../../support/https-receiver';
import { createAccount, credit, deliveriesOf, insertEndpoint, rotateSecretInTable, startWebhookWorld, type WebhookWorld } from '../../support/webhooks';
import { eventually } from '../../support/world';

const SCALE = 20;
let w: WebhookWorld;
let rt: Runtime;
let bus: CommandBus;
const resolved: string[] = [];

const receiver = (answer?: Receiver['answer']) => w.receiver(answer);
/** The receiver's URL under a host name that only the injected resolver knows (127.0.0.1). */
const byName = (r: Receiver) => r.url.replace('127.0.0.1', 'receiver.test');
const nowSeconds = () => Math.floor(rt.clock.now() / 1000);
const signedBy = (secret: string, r: ReceivedRequest) =>
  verifySignature(secret, { timestamp: r.headers['x-api-timestamp'], signature: r.headers['x-api-sign'] }, r.raw, nowSeconds());
const allDelivered = async (account: string, count: number) =>
  eventually(async () => {
    const rows = await deliveriesOf(rt, account);
    return rows.length === count && rows.every((d) => d.state === 'delivered') && rows;
  }, 30_000, `${count} deliveries of ${account}`);

beforeAll(async () => {
  w = await startWebhookWorld('whdelivery', { CLOCK_SCALE: String(SCALE), COMMAND_TIMEOUT_MS: '5000' }, {
    resolve: async (host) => {
      resolved.push(host);
      if (host === 'receiver.test') return [{ address: '127.0.0.1', family: 4 }];
      throw new Error('ENOTFOUND');
    },
  });
  ({ rt, bus } = w);
});

afterAll(() => w?.stop());

test('a credit is delivered once: exact headers, the envelope, signed with the endpoint secret, to the checked address', async () => {
  const rcv = await receiver();
  const account = await createAccount(rt, bus);
  const endpoint = await insertEndpoint(rt, account, byName(rcv));
  const journal = await credit(bus, account, 5_000_000n);
  const [row] = await allDelivered(account, 1);

  expect(rcv.requests).toHaveLength(1);
  const r = rcv.requests[0];
  expect(r.path).toBe('/hooks');
  const own = Object.fromEntries(Object.entries(r.headers).filter(([k]) => k.startsWith('x-') || ['content-type', 'user-agent', 'content-length'].includes(k)));
  expect(own).toEqual({
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(r.raw.length),
    'user-agent': 'energy-webhook/1',
    'x-event-id': row.event_id,
    'x-event-type': 'balance.credited',
    'x-event-version': '1',
    'x-delivery-id': expect.stringMatching(/^dlv_[0-9a-f]{24}$/),
    'x-delivery-attempt': '1',
    'x-api-timestamp': expect.stringMatching(/^\d{10}$/),
    'x-api-sign': expect.stringMatching(/^[A-Za-z0-9+/]{43}=$/),
  });
  expect(Math.abs(Number(r.headers['x-api-timestamp']) - nowSeconds())).toBeLessThan(120);
  expect(signedBy(endpoint.secret, r)).toBe(true);
  expect(signedBy('whsec_other', r)).toBe(false);

  const text = r.raw.toString('utf8');
  expect(Object.keys(JSON.parse(text))).toEqual(['event', 'event_id', 'event_version', 'created_at', 'account_id', 'network', 'test', 'data']);
  expect(parseJson(text)).toEqual({
    event: 'balance.credited', event_id: row.event_id, event_version: 1,
    created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    account_id: account, network: 'nile', test: false,
    data: expect.objectContaining({ reason: 'adjustment', currency: 'TRX', asset: 'TRX', amount_sun: 5_000_000, reference_id: journal, tx_hash: null }),
  });
  expect(row).toMatchObject({ attempt: 1, response_status: 200, error: null, endpoint_id: endpoint.id });
  const { rows } = await rt.pool.query('SELECT last_delivery_status, last_delivery_at FROM webhook_endpoints WHERE id = $1', [endpoint.id]);
  expect(rows[0].last_delivery_status).toBe(200);
  // One resolution for the one attempt, and the connection went to its answer: Node never looked the name up itself.
  expect(resolved.filter((h) => h === 'receiver.test')).toHaveLength(1);
});

test('every event type goes out in the envelope, data passed through; a second Avro type flows through intake', async () => {
  const rcv = await receiver();
  const account = `acc_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
  const endpoint = await insertEndpoint(rt, account, rcv.url);
  const base = rt.clock.now();
  const events: IncomingEvent[] = webhookEventTypes.map((type, i) => ({
    eventId: `evt_${type.replace(/[._]/g, '')}${i}`, type, eventVersion: 1, createdAt: base + i, accountId: account, network: 'nile',
    data: { sample: type, index: i, amount_sun: 10n ** 18n + BigInt(i), nested: { list: [i] } }, seq: BigInt(i),
  }));
  await inTransaction(rt.pool, (c) => insertDeliveries(c, events, rt.clock.now()));

  // deposit_address.rotated, straight onto account-events in the wire format, through the dispatcher's intake.
  const t = rt.codec.topics.accountEvents;
  const wireEventId = `evt_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
  await rt.log.send(t.topic, [{
    key: await rt.registry.encode(t.keyId, { account_id: account }),
    value: await rt.registry.encode(t.valueId, {
      event_id: wireEventId, event: 'deposit_address.rotated', event_version: 1, created_at: BigInt(base), account_id: account, network: 'nile',
      data: { 'energy.rental.events.DepositAddressRotated': { address: 'TNew', retired_address: null, retired_credit_until: null, rotated_at: '2026-01-01T00:00:00Z' } },
    }),
  }]);
  await allDelivered(account, 14);

  for (const [i, e] of events.entries()) {
    const r = rcv.requests.find((x) => x.headers['x-event-id'] === e.eventId)!;
    expect(r.headers['x-event-type']).toBe(e.type);
    expect(signedBy(endpoint.secret, r)).toBe(true);
    expect(parseJson(r.raw.toString())).toEqual({
      event: e.type, event_id: e.eventId, event_version: 1, created_at: new Date(base + i).toISOString(), account_id: account,
      network: 'nile', test: false, data: { sample: e.type, index: i, amount_sun: 10n ** 18n + BigInt(i), nested: { list: [i] } },
    });
  }
  const rotated = rcv.requests.find((x) => x.headers['x-event-id'] === wireEventId)!;
  expect(parseJson(rotated.raw.toString())).toMatchObject({
    event: 'deposit_address.rotated', test: false,
    data: { address: 'TNew', retired_address: null, retired_credit_until: null, rotated_at: '2026-01-01T00:00:00Z' },
  });
});

test('a receiver that fails twice (500, then a redirect that is not followed) gets the same event again on the schedule', async () => {
  const rcv = await receiver((_r, n) => (n === 1 ? { status: 500 } : n === 2 ? { status: 302, body: 'moved' } : { status: 204 }));
  const account = await createAccount(rt, bus);
  await insertEndpoint(rt, account, rcv.url);
  await credit(bus, account, 1_000n);
  const [row] = await allDelivered(account, 1);

  expect(rcv.requests.map((r) => r.headers['x-delivery-attempt'])).toEqual(['1', '2', '3']);
  expect(new Set(rcv.requests.map((r) => r.headers['x-event-id']))).toEqual(new Set([row.event_id]));
  expect(new Set(rcv.requests.map((r) => r.headers['x-delivery-id'])).size).toBe(3);
  // 15 s and 30 s on a clock 20 times faster (less the time the claim takes).
  const [a, b, c] = rcv.requests.map((r) => r.at);
  expect(b - a).toBeGreaterThanOrEqual((15_000 / SCALE) * 0.9);
  expect(c - b).toBeGreaterThanOrEqual((30_000 / SCALE) * 0.9);
  expect(row).toMatchObject({ attempt: 3, target_attempt: 3, response_status: 204, error: null });
});

test('an answer slower than 10 s is a failure, retried', async () => {
  const rcv = await receiver((_r, n) => (n === 1 ? { status: 200, delayMs: (12_000 / SCALE) * 2 } : { status: 200 }));
  const account = await createAccount(rt, bus);
  await insertEndpoint(rt, account, rcv.url);
  await credit(bus, account, 1_000n);
  const failed = await eventually(async () => (await deliveriesOf(rt, account)).find((d) => d.state === 'failed'), 20_000, 'the timed-out attempt');
  expect(failed).toMatchObject({ attempt: 1, response_status: null, error: expect.stringMatching(/^timeout/) });
  const [row] = await allDelivered(account, 1);
  expect(row).toMatchObject({ attempt: 2, response_status: 200, error: null });
});

test('a paused primary holds its deliveries and does not promote the backup; resuming sends them', async () => {
  const primary = await receiver();
  const backup = await receiver();
  const account = await createAccount(rt, bus);
  const ep = await insertEndpoint(rt, account, primary.url, { active: false });
  await insertEndpoint(rt, account, backup.url, { role: 'backup' });
  await credit(bus, account, 1_000n);
  await eventually(async () => (await deliveriesOf(rt, account)).length === 1, 20_000, 'the delivery row');
  await new Promise((r) => setTimeout(r, 60_000 / SCALE)); // a minute on the clock
  expect((await deliveriesOf(rt, account))[0]).toMatchObject({ state: 'pending', attempt: 0 });
  expect(primary.requests).toHaveLength(0);
  expect(backup.requests).toHaveLength(0);

  await rt.pool.query('UPDATE webhook_endpoints SET is_active = true WHERE id = $1', [ep.id]);
  await allDelivered(account, 1);
  expect(primary.requests).toHaveLength(1);
  expect(backup.requests).toHaveLength(0);
});

test('a secret rotated between two attempts: the next attempt is signed with the new secret only', async () => {
  const rcv = await receiver((_r, n) => (n === 1 ? { status: 503 } : { status: 200 }));
  const account = await createAccount(rt, bus);
  const ep = await insertEndpoint(rt, account, rcv.url);
  // Hold the retry far enough out to rotate in between: the second attempt comes 15 s (750 ms) later.
  await credit(bus, account, 1_000n);
  await eventually(async () => rcv.requests.length === 1, 20_000, 'the first attempt');
  const rotated = await rotateSecretInTable(rt, ep.id);
  await allDelivered(account, 1);
  expect(rcv.requests).toHaveLength(2);
  expect(signedBy(ep.secret, rcv.requests[0])).toBe(true);
  expect(signedBy(rotated, rcv.requests[1])).toBe(true);
  expect(signedBy(ep.secret, rcv.requests[1])).toBe(false);
});

test("one order's events: first attempts in event order, but a failing earlier event does not hold the later ones back", async () => {
  // The first event fails twice; the second must not wait for those retries (README, "Delivery order").
  let first: string | undefined;
  const rcv = await receiver((r) => {
    first ??= r.headers['x-event-id'];
    return r.headers['x-event-id'] === first && Number(r.headers['x-delivery-attempt']) <= 2 ? { status: 500 } : { status: 200 };
  });
  const account = await createAccount(rt, bus);
  await insertEndpoint(rt, account, rcv.url);
  await credit(bus, account, 1_000n);
  await credit(bus, account, 2_000n);
  const rows = await allDelivered(account, 2);
  const order = rcv.requests.map((r) => `${r.headers['x-event-id']}#${r.headers['x-delivery-attempt']}`);
  const [e0, e1] = [rows[0].event_id, rows[1].event_id];
  // e0 went first; e1 went out once e0's first attempt failed, before e0's retries were done.
  expect(order[0]).toBe(`${e0}#1`);
  expect(order.indexOf(`${e1}#1`)).toBeLessThan(order.indexOf(`${e0}#3`));
  expect(order.filter((x) => x.startsWith(e0))).toEqual([`${e0}#1`, `${e0}#2`, `${e0}#3`]);
  expect(order.filter((x) => x.startsWith(e1))).toEqual([`${e1}#1`]);
});

test('an earlier event not yet attempted (or in flight) still holds back the later one of its order', async () => {
  const rcv = await receiver();
  const account = await createAccount(rt, bus);
  const endpoint = await insertEndpoint(rt, account, rcv.url, { active: false });
  const base = rt.clock.now();
  const events: IncomingEvent[] = [0, 1].map((i) => ({
    eventId: `evt_hold${randomUUID().replace(/-/g, '').slice(0, 16)}${i}`, type: 'order.confirmed', eventVersion: 1, createdAt: base + i,
    accountId: account, network: 'nile', data: { order_id: `ord_hold${account.slice(4, 12)}`, tier: '1h' }, seq: BigInt(1_000 + i),
  }));
  await inTransaction(rt.pool, (c) => insertDeliveries(c, events, rt.clock.now()));
  await rt.pool.query('UPDATE webhook_endpoints SET is_active = true WHERE id = $1', [endpoint.id]);
  await allDelivered(account, 2);
  expect(rcv.requests.map((r) => r.headers['x-event-id'])).toEqual(events.map((e) => e.eventId));
});

test('the 5m cut-off applies to every event of a 5m order, also those without data.tier', async () => {
  const account = await createAccount(rt, bus);
  await insertEndpoint(rt, account, 'https://127.0.0.1:9/never');
  const client = await rt.pool.connect();
  try {
    // Inside a transaction rolled back: the order row exists only for intake to read its tier.
    await client.query('BEGIN');
    const now = new Date(rt.clock.now());
    const orders = [['5m', `ord_cut5m${account.slice(4, 12)}`], ['1h', `ord_cut1h${account.slice(4, 12)}`]];
    for (const [tier, id] of orders) {
      await client.query(
        `INSERT INTO orders (id, account_id, request_hash, resource, amount, tier, duration_seconds, receiver, source, status, confirm_status,
           pay_amount_sun, activate_amount_sun, total_amount_sun, refunded_amount_sun, supplier, allocations, undelegations, created_at, updated_at)
         VALUES ($1, $2, 'h', 'energy', 65000, $3, 300, 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8', 'api', 'expired', 'confirmed', 1, 0, 1, 0, 'pool', '[]', '[]', $4, $4)`,
        [id, account, tier, now],
      );
    }
    const events: IncomingEvent[] = orders.flatMap(([tier, id], k) => (['order.expired', 'order.reclaimed', 'order.refunded', 'order.confirmed'] as const).map((type, i) => ({
      eventId: `evt_cut${k}${i}${randomUUID().replace(/-/g, '').slice(0, 12)}`, type, eventVersion: 1, createdAt: now.getTime(), accountId: account,
      network: 'nile', data: type === 'order.confirmed' ? { order_id: id, tier } : { order_id: id }, seq: BigInt(2_000 + k * 10 + i),
    })));
    await insertDeliveries(client, events, now.getTime());
    const { rows } = await client.query('SELECT event_type, stream_key, max_attempts FROM webhook_deliveries WHERE account_id = $1 ORDER BY seq', [account]);
    expect(rows.map((r) => [r.event_type, r.max_attempts])).toEqual([
      ['order.expired', 4], ['order.reclaimed', 4], ['order.refunded', 4], ['order.confirmed', 4],
      ['order.expired', 10], ['order.reclaimed', 10], ['order.refunded', 10], ['order.confirmed', 10],
    ]);
  } finally {
    await client.query('ROLLBACK');
    client.release();
  }
});

test('the URL is checked again at delivery: a forbidden address is never connected to', async () => {
  const rcv = await receiver();
  const account = await createAccount(rt, bus);
  await insertEndpoint(rt, account, 'https://169.254.169.254/latest/meta-data');
  await credit(bus, account, 1_000n);
  const row = await eventually(async () => (await deliveriesOf(rt, account)).find((d) => d.state === 'failed'), 20_000, 'the refused attempt');
  expect(row).toMatchObject({ response_status: null, error: 'url_rejected: forbidden_address' });

  // With private targets not allowed, a name resolving to 127.0.0.1 is refused before any connection.
  const answer = await sendAttempt(byName(rcv), { body: Buffer.from('{}'), headers: {} }, {
    allowPrivate: false, answerLimitMs: 2_000, ca: testCa().ca, resolve: async () => [{ address: '127.0.0.1', family: 4 }],
  });
  expect(answer).toMatchObject({ ok: false, status: null, error: 'url_rejected: forbidden_address' });
  expect(rcv.requests).toHaveLength(0);
});
