/** The README's receiver example accepts what the dispatcher sends and refuses everything else. */
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { envelopeBytes, signedRequest } from '../../../services/webhooks/signing';
import { verifyWebhook, webhookServer } from '../../support/webhook-receiver-example';

const secret = 'whsec_guide';
const now = 1_763_800_000;
const delivery = (test = false, at = now, eventId = 'evt_guide') => {
  const body = envelopeBytes({ eventId, type: 'balance.credited', eventVersion: 1, createdAt: at * 1000, accountId: 'acc_1', network: 'nile', data: { amount_sun: 5n } }, test);
  const { headers } = signedRequest(secret, body, { eventId, eventType: 'balance.credited', eventVersion: 1, deliveryId: 'dlv_1', attempt: 1, timestampSeconds: at, userAgent: 'energy-webhook/1' });
  return { body, headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v])) };
};

/** POSTs a delivery to the example server on `port`; resolves its status. */
const postTo = (port: number) => (d: ReturnType<typeof delivery>) =>
  new Promise<number>((resolve, reject) => {
    const req = request({ agent: false, host: '127.0.0.1', port, method: 'POST', path: '/', headers: d.headers }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end(d.body);
  });

test('accepts a real delivery, refuses tampering, a wrong secret and old timestamps', () => {
  const { body, headers } = delivery();
  expect(verifyWebhook(secret, headers, body, now + 10)).toMatchObject({ ok: true, event: { event: 'balance.credited', event_id: 'evt_guide', data: { amount_sun: 5 } } });
  expect(verifyWebhook(secret, headers, Buffer.from(body.toString().replace('5', '6')), now)).toEqual({ ok: false, reason: 'bad signature' });
  expect(verifyWebhook('whsec_other', headers, body, now)).toEqual({ ok: false, reason: 'bad signature' });
  expect(verifyWebhook(secret, headers, body, now + 301)).toEqual({ ok: false, reason: 'timestamp outside the window' });
  expect(verifyWebhook(secret, { ...headers, 'x-api-sign': undefined }, body, now)).toMatchObject({ ok: false });
});

test('the example server handles an event once, acknowledges repeats, skips test deliveries', async () => {
  const handled: string[] = [];
  const server = webhookServer(secret, (e) => handled.push(e.event_id));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const post = postTo(port);
  const t = Math.floor(Date.now() / 1000);
  expect(await post(delivery(false, t))).toBe(200);
  expect(await post(delivery(false, t))).toBe(200);
  expect(await post(delivery(true, t, 'evt_test'))).toBe(200);
  const forged = delivery(false, t, 'evt_forged');
  expect(await post({ ...forged, body: Buffer.from(forged.body.toString().replace('"amount_sun":5', '"amount_sun":9')) })).toBe(401);
  expect(handled).toEqual(['evt_guide']);
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

test('a replay of a handled delivery under a fresh X-Event-Id header is still the same event (dedup on the signed event_id)', async () => {
  const handled: string[] = [];
  const server = webhookServer(secret, (e) => handled.push(e.event_id));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const post = postTo(port);
  const original = delivery(false, Math.floor(Date.now() / 1000), 'evt_replayed');
  expect(await post(original)).toBe(200);
  expect(await post({ ...original, headers: { ...original.headers, 'x-event-id': 'evt_fresh_header' } })).toBe(200);
  expect(handled).toEqual(['evt_replayed']);
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});
