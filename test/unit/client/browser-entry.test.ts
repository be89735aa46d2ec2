/**
 * The typed client's browser entry (clients/typescript/src/browser.ts), which the dashboard calls the API
 * through: same-origin session, X-CSRF-Token on unsafe methods only, Retry-After honoured, the contract's
 * error envelope as EnergyApiError, cursor paging; and bundled for a browser it carries no Node module.
 */
import path from 'node:path';
import { build } from 'esbuild';
import { createBrowserClient, dataOf, EnergyApiError } from '../../../clients/typescript/src/browser';

const root = path.resolve(__dirname, '../../..');
type Sent = { url: string; method: string; headers: Headers; body: string | undefined; credentials: string | undefined };

function fakeApi(answers: Response[]) {
  const sent: Sent[] = [];
  const slept: number[] = [];
  let csrf: string | null = 'csrf-1';
  const client = createBrowserClient({
    baseUrl: 'http://dash.test',
    csrfToken: () => csrf,
    sleep: async (ms) => void slept.push(ms),
    fetch: (async (url: string, init: RequestInit) => {
      sent.push({ url, method: String(init.method), headers: new Headers(init.headers), body: init.body as string | undefined, credentials: init.credentials });
      const next = answers.shift();
      if (!next) throw new Error('no answer left');
      return next;
    }) as typeof fetch,
  });
  return { client, sent, slept, setCsrf: (t: string | null) => (csrf = t) };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

test('reads go without the CSRF header, writes carry it, every call sends the same-origin cookie', async () => {
  const { client, sent, setCsrf } = fakeApi([json(200, { available_sun: 5 }), json(201, { id: 'adr_1' }), new Response(null, { status: 204 })]);
  const balance = await dataOf(client.api.GET('/v1/balance'));
  expect(balance.available_sun).toBe(5);
  await dataOf(client.api.POST('/v1/account/addresses', { body: { label: 'hot', address: 'T1' } }));
  setCsrf('csrf-2');
  expect(await dataOf(client.api.DELETE('/v1/account/addresses/{entryId}', { params: { path: { entryId: 'adr 1' } } }))).toBeUndefined();
  expect(sent.map((s) => [s.method, new URL(s.url).pathname, s.headers.get('x-csrf-token'), s.credentials])).toEqual([
    ['GET', '/v1/balance', null, 'same-origin'],
    ['POST', '/v1/account/addresses', 'csrf-1', 'same-origin'],
    ['DELETE', '/v1/account/addresses/adr%201', 'csrf-2', 'same-origin'],
  ]);
  expect(sent[1].body).toBe('{"label":"hot","address":"T1"}');
  expect(sent.some((s) => s.headers.has('x-api-key') || s.headers.has('x-api-sign'))).toBe(false);
});

test('a 429 is retried after what Retry-After says; the order keeps its client_order_id', async () => {
  const { client, sent, slept } = fakeApi([
    json(429, { error: { code: 1020, slug: 'rate_limited', message: 'Slow down.', details: null }, request_id: 'r1' }, { 'retry-after': '2' }),
    json(201, { id: 'ord_1', status: 'active' }),
  ]);
  const { order, created } = await client.placeOrder({ resource: 'energy', amount: 65_000, tier: '1h', receiver: 'T1' });
  expect([order.id, created]).toEqual(['ord_1', true]);
  expect(slept).toEqual([2000]);
  const ids = sent.map((s) => JSON.parse(s.body ?? '{}').client_order_id);
  expect(ids[0]).toMatch(/^cli_[0-9a-f]{32}$/);
  expect(ids[1]).toBe(ids[0]);
  expect(sent.every((s) => s.headers.get('x-csrf-token') === 'csrf-1')).toBe(true);
});

test('a write without idempotency is not sent again after a 503; the envelope arrives as EnergyApiError', async () => {
  const envelope = { error: { code: 1014, slug: 'csrf_token_invalid', message: 'CSRF token missing.', details: null }, request_id: 'req_9' };
  const { client, sent } = fakeApi([json(503, { error: { code: 1050, slug: 'unavailable', message: 'Busy.', details: null }, request_id: 'r' }), json(403, envelope)]);
  await expect(dataOf(client.api.POST('/v1/session/revoke-all'))).rejects.toMatchObject({ status: 503, code: 1050 });
  const failure = await dataOf(client.api.PATCH('/v1/account', { body: { display_name: 'x' } })).catch((e: unknown) => e);
  expect(failure).toBeInstanceOf(EnergyApiError);
  expect(failure).toMatchObject({ status: 403, code: 1014, slug: 'csrf_token_invalid', reason: 'CSRF token missing.', requestId: 'req_9' });
  expect(sent).toHaveLength(2);
});

test('paginate follows next_cursor to the last page', async () => {
  const { client, sent } = fakeApi([json(200, { data: [{ id: 'l1' }, { id: 'l2' }], next_cursor: 'c2' }), json(200, { data: [{ id: 'l3' }], next_cursor: null })]);
  const ids: string[] = [];
  for await (const entry of client.paginate('/v1/ledger', { query: { kind: 'deposit', limit: 2 } })) ids.push(entry.id);
  expect(ids).toEqual(['l1', 'l2', 'l3']);
  expect(sent.map((s) => new URL(s.url).search)).toEqual(['?kind=deposit&limit=2', '?kind=deposit&limit=2&cursor=c2']);
});

test('bundled for a browser, the entry and the dashboard carry no Node module and no API-key signer', async () => {
  for (const entry of ['clients/typescript/src/browser.ts', 'web/src/main.ts']) {
    // platform 'browser' cannot resolve node:crypto: the build itself fails if anything imports it.
    const out = await build({ entryPoints: [path.join(root, entry)], bundle: true, write: false, platform: 'browser', format: 'esm', metafile: true, logLevel: 'silent' });
    const inputs = Object.keys(out.metafile.inputs);
    expect(inputs.some((i) => i.endsWith('clients/typescript/src/browser.ts'))).toBe(true);
    expect(inputs.filter((i) => i.startsWith('node:') || i.endsWith('src/signing.ts') || i.endsWith('src/transport.ts'))).toEqual([]);
    expect(out.outputFiles[0].text).not.toMatch(/createHmac|node:crypto/);
  }
});
