/**
 * The client's integrator-facing parts (clients/typescript/src): exact int64, the webhook receiver check
 * against what the dispatcher really signs, jittered backoff, the per-attempt timeout, the User-Agent and
 * the version the package declares.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { envelopeBytes, signedRequest } from '../../../services/webhooks/signing';
import { parseJson, stringifyJson } from '../../../clients/typescript/src/int64';
import { memoryEventIdStore, verifyWebhook, webhookReceiver, WebhookVerificationError } from '../../../clients/typescript/src/webhooks';
import { defaultRetryPolicy, retryDelay } from '../../../clients/typescript/src/retry';
import { createEnergyClient, RequestTimeoutError, CLIENT_VERSION } from '../../../clients/typescript/src';

test('int64: exact beyond 2^53 (bigint), plain numbers below it, bigints sent as JSON numbers', () => {
  const parsed = parseJson('{"balance_sun":9007199254740993,"small":5,"ratio":1.5,"neg":-18446744073709551617,"list":[12345678901234567890]}') as Record<string, unknown>;
  expect(parsed).toEqual({ balance_sun: 9007199254740993n, small: 5, ratio: 1.5, neg: -18446744073709551617n, list: [12345678901234567890n] });
  // JSON.parse would have rounded the first one.
  expect(String(JSON.parse('9007199254740993'))).toBe('9007199254740992');
  expect(stringifyJson({ max_price_sun: 9007199254740993n, amount: 65_000 })).toBe('{"max_price_sun":9007199254740993,"amount":65000}');
  expect(parseJson(stringifyJson({ x: 2n ** 63n - 1n }))).toEqual({ x: 2n ** 63n - 1n });
});

const secret = 'whsec_AbCdEf0123456789';
function delivery(opts: { at: number; eventId?: string; headerEventId?: string; amount?: bigint; key?: string }) {
  const eventId = opts.eventId ?? 'evt_1';
  const body = envelopeBytes({ eventId, type: 'balance.credited', eventVersion: 1, createdAt: opts.at * 1000, accountId: 'acc_1', network: 'nile', data: { amount_sun: opts.amount ?? 5n } }, false);
  const { headers } = signedRequest(opts.key ?? secret, body, { eventId: opts.headerEventId ?? eventId, eventType: 'balance.credited', eventVersion: 1, deliveryId: 'dlv_1', attempt: 1, timestampSeconds: opts.at, userAgent: 'energy-webhook/1' });
  return { body, headers };
}

test('verifyWebhook accepts what the dispatcher signs and refuses tampering, other secrets, old timestamps and missing headers', () => {
  const at = 1_763_800_000;
  const { body, headers } = delivery({ at, amount: 2n ** 60n });
  const event = verifyWebhook(headers, body, { secret, nowSeconds: at + 299 });
  expect(event).toMatchObject({ event: 'balance.credited', event_id: 'evt_1', data: { amount_sun: 2n ** 60n } });
  // Several secrets (rotation, primary and backup): any one of them.
  expect(verifyWebhook(headers, body, { secret: ['whsec_old', secret], nowSeconds: at }).event_id).toBe('evt_1');
  const reason = (f: () => unknown) => { try { f(); return 'accepted'; } catch (e) { return (e as WebhookVerificationError).reason; } };
  expect(reason(() => verifyWebhook(headers, Buffer.from(body.toString().replace('"acc_1"', '"acc_2"')), { secret, nowSeconds: at }))).toBe('bad_signature');
  expect(reason(() => verifyWebhook(headers, body, { secret: 'whsec_other', nowSeconds: at }))).toBe('bad_signature');
  expect(reason(() => verifyWebhook(headers, body, { secret, nowSeconds: at + 301 }))).toBe('timestamp_outside_window');
  expect(reason(() => verifyWebhook(headers, body, { secret, nowSeconds: at - 301 }))).toBe('timestamp_outside_window');
  expect(reason(() => verifyWebhook({ ...headers, 'X-API-SIGN': undefined }, body, { secret, nowSeconds: at }))).toBe('missing_headers');
  // A Fetch Headers object works the same as node's header record.
  expect(verifyWebhook(new Headers(headers), body, { secret, nowSeconds: at }).event_id).toBe('evt_1');
});

test('webhookReceiver dedups on the signed event_id: a replay with a fresh X-Event-Id header is still a duplicate', async () => {
  const now = 1_763_800_000;
  const receive = webhookReceiver({ secret, store: memoryEventIdStore(), now: () => now * 1000 });
  const first = delivery({ at: now });
  expect(await receive(first.headers, first.body)).toMatchObject({ duplicate: false, event: { event_id: 'evt_1' } });
  // The retry, and the same signed body replayed under a made-up header id: the same event.
  expect((await receive(first.headers, first.body)).duplicate).toBe(true);
  const replay = { ...first.headers, 'X-Event-Id': 'evt_fresh_header' };
  expect((await receive(replay, first.body)).duplicate).toBe(true);
  const second = delivery({ at: now, eventId: 'evt_2' });
  expect((await receive(second.headers, second.body)).duplicate).toBe(false);
});

test('memoryEventIdStore forgets the oldest ids past its capacity', () => {
  const store = memoryEventIdStore(2);
  expect([store.add('a'), store.add('b'), store.add('a'), store.add('c'), store.add('a')]).toEqual([true, true, false, true, true]);
});

test('backoff is jittered within the policy (a fleet spreads out), Retry-After is waited exactly', () => {
  const p = defaultRetryPolicy;
  const lost = { kind: 'network_error' } as const;
  const delays = Array.from({ length: 200 }, () => retryDelay(lost, 3, true, p, 0, Math.random)!);
  expect(Math.max(...delays)).toBeLessThanOrEqual(1000);
  expect(Math.min(...delays)).toBeGreaterThanOrEqual(1000 * (1 - p.jitter));
  expect(new Set(delays).size).toBeGreaterThan(50);
  expect(retryDelay({ kind: 'response', status: 429, retryAfter: '2' }, 1, false, p, 0, () => 0.99)).toBe(2000);
  expect(retryDelay(lost, 3, true, { ...p, jitter: 0 }, 0, Math.random)).toBe(1000);
});

test('an attempt without an answer is abandoned after timeoutMs; a read is retried, then RequestTimeoutError', async () => {
  // Attempts are counted where they are sent: on a loaded machine an attempt can be abandoned before
  // this process's server has parsed it, so the server's count would say less than the client did.
  const server = createServer(() => { /* never answers */ });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const agents: string[] = [];
  const countingFetch: typeof fetch = (input, init) => {
    agents.push(String(new Request(input, init).headers.get('user-agent')));
    return fetch(input, init);
  };
  try {
    const client = createEnergyClient({
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, apiKey: { id: 'key_x', secret: 'y' }, timeoutMs: 150,
      retry: { maxAttempts: 2, baseDelayMs: 10 }, userAgent: 'my-bot/2', fetch: countingFetch,
    });
    const started = Date.now();
    const err = await client.api.GET('/v1/account').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RequestTimeoutError);
    expect(agents.length).toBe(2);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(agents[0]).toBe(`my-bot/2 energy-rental-client/${CLIENT_VERSION} node/${process.versions.node}`);
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
});

test('the version sent in the User-Agent is the package version', () => {
  const pkg = JSON.parse(readFileSync(path.resolve(__dirname, '../../../clients/typescript/package.json'), 'utf8'));
  expect(CLIENT_VERSION).toBe(pkg.version);
  expect([pkg.license, 'private' in pkg]).toEqual(['MIT', false]);
});
