/**
 * Exhausting the schedule: the primary's ten attempts, the move to the backup (same event id, schedule
 * restarted, backup's secret), dead after both, and the 5m tier cut after attempt 4. The clock runs
 * 3,000 times faster, so the eleven hours of one endpoint's schedule take about 13 s.
 */
import { randomUUID } from 'node:crypto';
import type { Runtime } from '../../../services/runtime';
import { inTransaction } from '../../../services/platform/db/pool';
import { insertDeliveries } from '../../../services/dispatcher/store';
import { verifySignature } from '../../../services/webhooks/signing';
import { downUrl } from '../../support/https-receiver';
import { deliveriesOf, insertEndpoint, startWebhookWorld, type WebhookWorld } from '../../support/webhooks';
import { eventually } from '../../support/world';

let w: WebhookWorld;
let rt: Runtime;

const newAccountId = () => `acc_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
/** The dispatcher's intake of one event (the clock is too fast for the command pipeline's deadlines). */
const intake = (accountId: string, type: string, data: Record<string, unknown>) =>
  inTransaction(rt.pool, (c) => insertDeliveries(c, [{
    eventId: `evt_${randomUUID().replace(/-/g, '').slice(0, 24)}`, type, eventVersion: 1, createdAt: rt.clock.now(), accountId, network: 'nile', data, seq: 1n,
  }], rt.clock.now()));

const settled = (account: string) =>
  eventually(async () => {
    const [row] = await deliveriesOf(rt, account);
    return row && (row.state === 'delivered' || row.state === 'dead') && row;
  }, 90_000, `the delivery of ${account} to settle`);

beforeAll(async () => {
  // No pipeline: at this speed the command deadlines pass before the processor sees them.
  w = await startWebhookWorld('whfailover', { CLOCK_SCALE: '3000' }, { pipeline: false });
  rt = w.rt;
});

afterAll(() => w?.stop());

test('primary down: ten attempts, then the backup with the same event id, its own secret, the schedule restarted; both exhausted: dead', async () => {
  const backupOk = await w.receiver();
  const backupFailing = await w.receiver(() => ({ status: 500 }));
  const [a, b] = [newAccountId(), newAccountId()];
  await insertEndpoint(rt, a, await downUrl());
  const backupA = await insertEndpoint(rt, a, backupOk.url, { role: 'backup' });
  await insertEndpoint(rt, b, await downUrl());
  await insertEndpoint(rt, b, backupFailing.url, { role: 'backup' });
  await intake(a, 'balance.credited', { reason: 'deposit', amount_sun: 1_000n });
  await intake(b, 'balance.credited', { reason: 'deposit', amount_sun: 1_000n });
  const [rowA, rowB] = await Promise.all([settled(a), settled(b)]);

  expect(rowA).toMatchObject({ state: 'delivered', attempt: 11, target_attempt: 1, failed_over: true, endpoint_id: backupA.id, response_status: 200 });
  expect(backupOk.requests).toHaveLength(1);
  const r = backupOk.requests[0];
  // The secret is checked at the request's own time: 3,000 times faster, the clock leaves the 300 s window in 0.1 s.
  expect(r.headers['x-event-id']).toBe(rowA.event_id);
  expect(r.headers['x-delivery-attempt']).toBe('11');
  expect(verifySignature(backupA.secret, { timestamp: r.headers['x-api-timestamp'], signature: r.headers['x-api-sign'] }, r.raw, Number(r.headers['x-api-timestamp']))).toBe(true);

  expect(rowB).toMatchObject({ state: 'dead', attempt: 20, target_attempt: 10, failed_over: true, response_status: 500 });
  expect(backupFailing.requests.map((x) => x.headers['x-delivery-attempt'])).toEqual(['11', '12', '13', '14', '15', '16', '17', '18', '19', '20']);
  expect(new Set(backupFailing.requests.map((x) => x.headers['x-event-id']))).toEqual(new Set([rowB.event_id]));
  // The backup's schedule restarted: its first attempt came at once, its second 15 s (5 ms) later, its last after 6 h (7.2 s).
  const at = backupFailing.requests.map((x) => x.at);
  expect(at[9] - at[8]).toBeGreaterThanOrEqual(6 * 3_600_000 / 3000 * 0.9);
});

test('an order of tier 5m stops after attempt 4 on each endpoint', async () => {
  const failing = await w.receiver(() => ({ status: 502 }));
  const account = newAccountId();
  await insertEndpoint(rt, account, failing.url);
  await insertEndpoint(rt, account, failing.url.replace('/hooks', '/backup'), { role: 'backup' });
  await intake(account, 'order.failed', { order_id: 'ord_5m', tier: '5m', resource: 'energy', amount: 65_000 });
  const row = await settled(account);
  expect(row).toMatchObject({ state: 'dead', attempt: 8, target_attempt: 4, failed_over: true, response_status: 502 });
  expect(failing.requests.map((x) => `${x.path}#${x.headers['x-delivery-attempt']}`)).toEqual([
    '/hooks#1', '/hooks#2', '/hooks#3', '/hooks#4', '/backup#5', '/backup#6', '/backup#7', '/backup#8',
  ]);
});
