import { createHmac } from 'node:crypto';
import { afterAttempt, maxAttemptsFor, RETRY_DELAYS_MS } from '../../../services/webhooks/schedule';
import { envelopeBytes, newEndpointSecret, signedRequest, signPayload, streamKeyOf, verifySignature } from '../../../services/webhooks/signing';
import { subscribes, webhookEventTypes } from '../../../services/webhooks/event-types';
import { webhookSecretBox } from '../../../services/webhooks/secrets';
import { parseJson } from '../../../services/platform/json';
import { freshKeys } from '../support/keys';

const MIN = 60_000;

describe('retry schedule', () => {
  it('has the spec delays: immediate, 15 s, 30 s, 3, 10, 20, 30 min, 1, 3, 6 h (about 11 h in all)', () => {
    expect(RETRY_DELAYS_MS).toEqual([0, 15_000, 30_000, 3 * MIN, 10 * MIN, 20 * MIN, 30 * MIN, 60 * MIN, 180 * MIN, 360 * MIN]);
    const total = RETRY_DELAYS_MS.reduce((a, b) => a + b, 0);
    expect(total / 3_600_000).toBeCloseTo(11.07, 1);
  });

  it('walks the schedule on one endpoint', () => {
    const at: number[] = [];
    for (let n = 1; n < 10; n++) {
      const step = afterAttempt({ targetAttempt: n, maxAttempts: 10, failedOver: false, alternateEndpointId: null }, { ok: false }, 1_000);
      expect(step.state).toBe('failed');
      at.push((step as { nextAttemptAt: number }).nextAttemptAt - 1_000);
    }
    expect(at).toEqual(RETRY_DELAYS_MS.slice(1));
  });

  it('moves to the backup when the primary is exhausted, restarts the schedule, then dies', () => {
    const exhausted = { targetAttempt: 10, maxAttempts: 10, failedOver: false, alternateEndpointId: 'whk_backup' };
    expect(afterAttempt(exhausted, { ok: false }, 5)).toEqual({ state: 'failed', failoverTo: 'whk_backup', nextAttemptAt: 5 });
    expect(afterAttempt({ ...exhausted, failedOver: true }, { ok: false }, 5)).toEqual({ state: 'dead' });
    expect(afterAttempt({ ...exhausted, alternateEndpointId: null }, { ok: false }, 5)).toEqual({ state: 'dead' });
    expect(afterAttempt(exhausted, { ok: true }, 5)).toEqual({ state: 'delivered', deliveredAt: 5 });
  });

  it('cuts the schedule after attempt 4 for orders of tier 5m', () => {
    expect(maxAttemptsFor({ order_id: 'ord_1', tier: '5m' })).toBe(4);
    expect(maxAttemptsFor({ order_id: 'ord_1', tier: '1h' })).toBe(10);
    expect(maxAttemptsFor({ reason: 'deposit' })).toBe(10);
    // order.expired / reclaimed / refunded carry no tier: the order's tier decides.
    expect(maxAttemptsFor({ order_id: 'ord_1' }, '5m')).toBe(4);
    expect(maxAttemptsFor({ order_id: 'ord_1' }, '1d')).toBe(10);
    expect(maxAttemptsFor({ order_id: 'ord_1' }, null)).toBe(10);
    const fourth = { targetAttempt: 4, maxAttempts: 4, failedOver: false, alternateEndpointId: null };
    expect(afterAttempt({ ...fourth, targetAttempt: 3 }, { ok: false }, 0)).toEqual({ state: 'failed', nextAttemptAt: 3 * MIN });
    expect(afterAttempt(fourth, { ok: false }, 0)).toEqual({ state: 'dead' });
  });
});

describe('signature, envelope, headers', () => {
  const source = {
    eventId: 'evt_1', type: 'balance.credited', eventVersion: 1, createdAt: Date.UTC(2026, 0, 2, 3, 4, 5, 6),
    accountId: 'acc_1', network: 'nile' as const, data: { amount_sun: 9_007_199_254_740_993n, tx_hash: null },
  };

  it('the envelope has the spec fields in order, ISO created_at, exact int64', () => {
    const text = envelopeBytes(source, false).toString('utf8');
    expect(text).toBe('{"event":"balance.credited","event_id":"evt_1","event_version":1,"created_at":"2026-01-02T03:04:05.006Z","account_id":"acc_1","network":"nile","test":false,"data":{"amount_sun":9007199254740993,"tx_hash":null}}');
    expect((parseJson(text) as { data: { amount_sun: bigint } }).data.amount_sun).toBe(9_007_199_254_740_993n);
  });

  it.each(webhookEventTypes)('%s passes its data through unchanged', (type) => {
    const data = { order_id: 'ord_x', nested: { a: [1, 2] }, n: 5n };
    const parsed = parseJson(envelopeBytes({ ...source, type, data }, true).toString()) as Record<string, unknown>;
    expect(parsed).toEqual({ event: type, event_id: 'evt_1', event_version: 1, created_at: '2026-01-02T03:04:05.006Z', account_id: 'acc_1', network: 'nile', test: true, data: { order_id: 'ord_x', nested: { a: [1, 2] }, n: 5 } });
  });

  it('signs timestamp.raw_body with HMAC-SHA256, base64', () => {
    const body = Buffer.from('{"a":1}');
    const expected = createHmac('sha256', 'whsec_x').update('1700000000.{"a":1}').digest('base64');
    expect(signPayload('whsec_x', 1_700_000_000, body)).toBe(expected);
    expect(verifySignature('whsec_x', { timestamp: '1700000000', signature: expected }, body, 1_700_000_100)).toBe(true);
    expect(verifySignature('whsec_x', { timestamp: '1700000000', signature: expected }, body, 1_700_000_301)).toBe(false);
    expect(verifySignature('whsec_y', { timestamp: '1700000000', signature: expected }, body, 1_700_000_000)).toBe(false);
    expect(verifySignature('whsec_x', { timestamp: '1700000000', signature: expected }, Buffer.from('{"a":2}'), 1_700_000_000)).toBe(false);
  });

  it('builds the exact delivery headers', () => {
    const body = envelopeBytes(source, false);
    const { headers } = signedRequest('whsec_x', body, { eventId: 'evt_1', eventType: 'balance.credited', eventVersion: 1, deliveryId: 'dlv_2', attempt: 3, timestampSeconds: 1_700_000_000, userAgent: 'energy-webhook/1' });
    expect(headers).toEqual({
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': String(body.length),
      'X-Event-Id': 'evt_1',
      'X-Event-Type': 'balance.credited',
      'X-Event-Version': '1',
      'X-Delivery-Id': 'dlv_2',
      'X-Delivery-Attempt': '3',
      'X-API-TIMESTAMP': '1700000000',
      'X-API-SIGN': signPayload('whsec_x', 1_700_000_000, body),
      'User-Agent': 'energy-webhook/1',
    });
  });

  it('orders events per order, else per account; filters by type (null = all)', () => {
    expect(streamKeyOf('acc_1', { order_id: 'ord_9' })).toBe('order:ord_9');
    expect(streamKeyOf('acc_1', { reason: 'deposit' })).toBe('account:acc_1');
    expect(subscribes(null, 'order.failed')).toBe(true);
    expect(subscribes(['order.failed'], 'order.failed')).toBe(true);
    expect(subscribes(['order.failed'], 'balance.credited')).toBe(false);
  });

  it('secrets are random, sealed per endpoint and do not open under another endpoint', () => {
    const secret = newEndpointSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(newEndpointSecret()).not.toBe(secret);
    const { WEBHOOK_SECRET_KEY: key } = freshKeys();
    const box = webhookSecretBox({ WEBHOOK_SECRET_KEY: key, WEBHOOK_DECRYPTION_KEYS: [key] });
    const sealed = box.seal('whk_a', secret);
    expect(sealed).not.toContain(secret);
    expect(box.open('whk_a', sealed)).toBe(secret);
    expect(() => box.open('whk_b', sealed)).toThrow();
    const other = 'ab'.repeat(32);
    expect(() => webhookSecretBox({ WEBHOOK_SECRET_KEY: other, WEBHOOK_DECRYPTION_KEYS: [other] }).open('whk_a', sealed)).toThrow();
    // During a rotation the previous key still opens what it sealed; new secrets are sealed under the new key.
    const rotating = webhookSecretBox({ WEBHOOK_SECRET_KEY: other, WEBHOOK_DECRYPTION_KEYS: [other, key] });
    expect(rotating.open('whk_a', sealed)).toBe(secret);
    expect(box.open.bind(null, 'whk_a', rotating.seal('whk_a', secret))).toThrow();
  });
});
