/**
 * Webhook fairness (issue 31, item 6): a per-endpoint cap on concurrent deliveries. One tenant's endpoint
 * answering in 2 s with 24 deliveries due must not hold all of the sender's slots: another tenant's four
 * deliveries go out at once, beside it, and the slow endpoint never has more than its cap in flight.
 * Real dispatcher (8 slots, cap 4), real HTTPS receivers, real PostgreSQL.
 */
import { randomUUID } from 'node:crypto';
import { inTransaction } from '../../../services/platform/db/pool';
import { DEFAULT_PER_ENDPOINT } from '../../../services/dispatcher/dispatcher';
import { insertDeliveries, type IncomingEvent } from '../../../services/dispatcher/store';
import { deliveriesOf, insertEndpoint, startWebhookWorld, type WebhookWorld } from '../../support/webhooks';
import { eventually } from '../../support/world';

const SLOW_MS = 2_000;
let w: WebhookWorld;

beforeAll(async () => {
  w = await startWebhookWorld('whfair', {}, { pipeline: false });
});
afterAll(() => w?.stop());

const accountId = () => `acc_${randomUUID().replace(/-/g, '').slice(0, 24)}`;

/** `n` order.confirmed events of distinct orders: distinct streams, so the order rule lets them run together. */
function orderEvents(account: string, n: number, seqFrom: number): IncomingEvent[] {
  const base = w.rt.clock.now();
  return Array.from({ length: n }, (_, i) => ({
    eventId: `evt_fair${randomUUID().replace(/-/g, '').slice(0, 20)}`, type: 'order.confirmed', eventVersion: 1, createdAt: base + i,
    accountId: account, network: 'nile', data: { order_id: `ord_fair${account.slice(4, 14)}${i}`, tier: '1h' }, seq: BigInt(seqFrom + i),
  }));
}

test('a slow endpoint fills only its own share; another tenant\'s deliveries go out beside it', async () => {
  let slowOpen = 0;
  let slowMax = 0;
  const slow = await w.receiver(() => {
    slowOpen++;
    slowMax = Math.max(slowMax, slowOpen);
    setTimeout(() => slowOpen--, SLOW_MS);
    return { status: 200, delayMs: SLOW_MS };
  });
  const fast = await w.receiver();
  const [slowAccount, fastAccount] = [accountId(), accountId()];
  await insertEndpoint(w.rt, slowAccount, slow.url);
  await insertEndpoint(w.rt, fastAccount, fast.url);

  await inTransaction(w.rt.pool, (c) => insertDeliveries(c, orderEvents(slowAccount, 24, 1), w.rt.clock.now()));
  // The slow endpoint's first attempts are out before the other tenant's events arrive.
  await eventually(async () => slow.requests.length >= 1 || undefined, 10_000, 'slow endpoint busy');
  const queuedAt = Date.now();
  await inTransaction(w.rt.pool, (c) => insertDeliveries(c, orderEvents(fastAccount, 4, 1_000), w.rt.clock.now()));

  await eventually(async () => {
    const rows = await deliveriesOf(w.rt, fastAccount);
    return rows.length === 4 && rows.every((d) => d.state === 'delivered');
  }, 20_000, 'fast tenant delivered');
  // Without the cap the 8 slots were all the slow endpoint's: the fast tenant waited a whole slow answer (2 s) or more.
  expect(Math.max(...fast.requests.map((r) => r.at)) - queuedAt).toBeLessThan(SLOW_MS * 0.75);
  expect(slow.requests.filter((r) => r.at <= Math.max(...fast.requests.map((f) => f.at))).length).toBeLessThanOrEqual(DEFAULT_PER_ENDPOINT);

  await eventually(async () => {
    const rows = await deliveriesOf(w.rt, slowAccount);
    return rows.length === 24 && rows.every((d) => d.state === 'delivered');
  }, 60_000, 'slow tenant delivered');
  expect(slowMax).toBeLessThanOrEqual(DEFAULT_PER_ENDPOINT);
  expect(slowMax).toBe(DEFAULT_PER_ENDPOINT);
});
