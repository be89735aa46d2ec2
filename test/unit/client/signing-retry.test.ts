/**
 * The typed client's pure parts (clients/typescript/src): its signatures are the ones the service checks
 * (seconds and milliseconds), timestamps never repeat for a write, and the retry rules never send a
 * write twice unless the server said nothing happened or the request carries its own idempotency.
 */
import { Stamper, signature, signedHeaders, requestTarget } from '../../../clients/typescript/src/signing';
import { defaultRetryPolicy, isReplaySafe, parseRetryAfter, retryDelay } from '../../../clients/typescript/src/retry';
import { signingTransport } from '../../../clients/typescript/src/transport';
import { signRequest, timestampInWindow } from '../../../services/identity/request-signing';

const key = { id: 'key_0123456789abcdef01234567', secret: 'sk_test_secret' };

test('client signatures match the service, query string and body included', () => {
  const body = '{"resource":"energy","amount":65000}';
  expect(signature(key.secret, '1763765000', 'post', '/v1/orders?x=1', body)).toBe(signRequest(key.secret, '1763765000', 'POST', '/v1/orders?x=1', body));
  expect(signature(key.secret, '1763765000123', 'GET', '/v1/orders?limit=10', '')).toBe(signRequest(key.secret, '1763765000123', 'GET', '/v1/orders?limit=10'));
  // The query string is part of what is signed.
  expect(signature(key.secret, '1', 'GET', '/v1/orders?limit=10', '')).not.toBe(signature(key.secret, '1', 'GET', '/v1/orders', ''));
  expect(signedHeaders(key, '5', 'GET', '/v1/account', '')).toEqual({ 'X-API-KEY': key.id, 'X-API-TIMESTAMP': '5', 'X-API-SIGN': signRequest(key.secret, '5', 'GET', '/v1/account') });
  expect(requestTarget('http://127.0.0.1:3000/v1/orders?limit=2&cursor=abc#frag')).toBe('/v1/orders?limit=2&cursor=abc');
});

test('the service takes seconds and 13-digit milliseconds within 300 s, nothing else', () => {
  const now = 1_763_765_000_000;
  expect(timestampInWindow(String(now / 1000), now)).toBe(true);
  expect(timestampInWindow(String(now + 299_000), now)).toBe(true);
  expect(timestampInWindow(String(now - 301_000), now)).toBe(false);
  expect(timestampInWindow(String(now / 1000 + 301), now)).toBe(false);
  expect(timestampInWindow('17637650000001', now)).toBe(false);
});

test('milliseconds never repeat; in seconds a write waits for a second no write used, reads do not', () => {
  let clock = 1_000_500;
  const ms = new Stamper('milliseconds', () => clock);
  expect([ms.next(true).timestamp, ms.next(true).timestamp, ms.next(false).timestamp]).toEqual(['1000500', '1000501', '1000502']);
  const s = new Stamper('seconds', () => clock);
  expect(s.next(false)).toEqual({ timestamp: '1000', waitMs: 0 });
  expect(s.next(false)).toEqual({ timestamp: '1000', waitMs: 0 });
  expect(s.next(true)).toEqual({ timestamp: '1000', waitMs: 0 });
  expect(s.next(true)).toEqual({ timestamp: '1001', waitMs: 500 });
  clock = 1_003_000;
  expect(s.next(true)).toEqual({ timestamp: '1003', waitMs: 0 });
});

test('a request is replay-safe when it reads, or carries Idempotency-Key, client_order_id or client_subscription_id', () => {
  const none = new Headers();
  expect(isReplaySafe('GET', none, '')).toBe(true);
  expect(isReplaySafe('POST', none, '{"resource":"energy"}')).toBe(false);
  expect(isReplaySafe('POST', none, '{"client_order_id":"bot-1"}')).toBe(true);
  expect(isReplaySafe('POST', none, '{"client_subscription_id":"s-1"}')).toBe(true);
  expect(isReplaySafe('POST', none, '{"client_order_id":7}')).toBe(false);
  expect(isReplaySafe('POST', none, 'not json')).toBe(false);
  expect(isReplaySafe('POST', new Headers({ 'Idempotency-Key': 'key-00000001' }), '')).toBe(true);
  expect(isReplaySafe('DELETE', none, '')).toBe(false);
});

test('retry delays: Retry-After obeyed (seconds or date), 429 for any method, 5xx and lost answers only when replay-safe', () => {
  const now = Date.parse('2026-11-22T10:00:00Z');
  const p = defaultRetryPolicy;
  expect(parseRetryAfter('3', now)).toBe(3000);
  expect(parseRetryAfter('Sun, 22 Nov 2026 10:00:05 GMT', now)).toBe(5000);
  expect(parseRetryAfter('soon', now)).toBeNull();
  expect(retryDelay({ kind: 'response', status: 429, retryAfter: '2' }, 1, false, p, now)).toBe(2000);
  expect(retryDelay({ kind: 'response', status: 429, retryAfter: null }, 2, false, p, now)).toBe(500);
  expect(retryDelay({ kind: 'response', status: 503, retryAfter: '1' }, 1, false, p, now)).toBeNull();
  expect(retryDelay({ kind: 'response', status: 503, retryAfter: '1' }, 1, true, p, now)).toBe(1000);
  expect(retryDelay({ kind: 'network_error' }, 1, false, p, now)).toBeNull();
  expect(retryDelay({ kind: 'network_error' }, 1, true, p, now)).toBe(250);
  expect(retryDelay({ kind: 'response', status: 500, retryAfter: null }, 1, true, p, now)).toBeNull();
  expect(retryDelay({ kind: 'response', status: 409, retryAfter: null }, 1, true, p, now)).toBeNull();
  // A Retry-After beyond the policy's patience, or the last attempt: the answer goes back to the caller.
  expect(retryDelay({ kind: 'response', status: 429, retryAfter: '120' }, 1, true, p, now)).toBeNull();
  expect(retryDelay({ kind: 'response', status: 429, retryAfter: '1' }, p.maxAttempts, true, p, now)).toBeNull();
  expect(retryDelay({ kind: 'network_error' }, 10, true, { ...p, maxAttempts: 20 }, now)).toBe(p.maxDelayMs);
});

test('the transport signs each attempt afresh and waits what Retry-After says', async () => {
  const sent: Array<{ url: string; headers: Headers; body: string | undefined }> = [];
  const answers = [new Response('{}', { status: 429, headers: { 'retry-after': '1' } }), new Response('{"id":"ord_1"}', { status: 201 })];
  const slept: number[] = [];
  const transport = signingTransport({
    apiKey: key, timestampUnit: 'milliseconds', retry: defaultRetryPolicy, now: () => 1_763_765_000_000, sleep: async (ms) => void slept.push(ms),
    fetch: (async (url: string, init: RequestInit) => {
      sent.push({ url, headers: new Headers(init.headers), body: init.body as string | undefined });
      return answers.shift()!;
    }) as typeof fetch,
  });
  const body = '{"resource":"energy","receiver":"T1"}';
  const res = await transport(new Request('http://api.test/v1/orders?x=1', { method: 'POST', body, headers: { 'content-type': 'application/json' } }));
  expect(res.status).toBe(201);
  expect(slept).toEqual([1000]);
  expect(sent).toHaveLength(2);
  const [first, second] = sent.map((s) => s.headers);
  expect(first.get('x-api-timestamp')).toBe('1763765000000');
  expect(second.get('x-api-timestamp')).toBe('1763765000001');
  expect(second.get('x-api-sign')).toBe(signRequest(key.secret, '1763765000001', 'POST', '/v1/orders?x=1', body));
  expect(sent.every((s) => s.body === body && s.headers.get('content-type') === 'application/json')).toBe(true);
});

test('a write without idempotency is not sent again after a lost answer', async () => {
  let calls = 0;
  const transport = signingTransport({
    apiKey: key, timestampUnit: 'seconds', retry: defaultRetryPolicy, now: Date.now, sleep: async () => undefined,
    fetch: (async () => {
      calls++;
      throw new TypeError('fetch failed');
    }) as unknown as typeof fetch,
  });
  await expect(transport(new Request('http://api.test/v1/quotes', { method: 'POST', body: '{}' }))).rejects.toThrow('fetch failed');
  expect(calls).toBe(1);
  await expect(transport(new Request('http://api.test/v1/orders', { method: 'POST', body: '{"client_order_id":"a"}' }))).rejects.toThrow('fetch failed');
  expect(calls).toBe(1 + defaultRetryPolicy.maxAttempts);
});
