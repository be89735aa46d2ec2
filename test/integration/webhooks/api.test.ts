/**
 * The webhook endpoints of the API (spec section 4, contract.md section 6): auth, the two roles, URL
 * checks, the role swap, pausing, secret rotation, the test delivery and the delivery log.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { createApp } from '../../../services/api/app';
import { jsonBody } from '../../../services/api/body';
import { errorHandler } from '../../../services/api/errors';
import { buildDocument } from '../../../services/api/openapi/document';
import { requestId } from '../../../services/api/request-id';
import { webhooksRouter } from '../../../services/api/routes/webhooks';
import { RequestValidator } from '../../../services/api/validate';
import type { CommandBus } from '../../../services/platform/command-bus';
import type { Runtime } from '../../../services/runtime';
import { parseJson } from '../../../services/platform/json';
import { verifySignature } from '../../../services/webhooks/signing';
import type { Resolver } from '../../../services/webhooks/url-check';
import { testCa, type ReceivedRequest, type Receiver } from '../../support/https-receiver';
import { call, sessionHeaders, signedCall, signIn, signUp, type Customer } from '../../support/identity';
import { credit, startWebhookWorld, type WebhookWorld } from '../../support/webhooks';
import { eventually } from '../../support/world';

let w: WebhookWorld;
let rt: Runtime;
let bus: CommandBus;
const servers: Server[] = [];
let base: string;
/** The same database behind an API that does not allow private targets (production's setting). */
let strictBase: string;
let customer: Customer;

const resolve: Resolver = async (host) => {
  if (host === 'receiver.test') return [{ address: '127.0.0.1', family: 4 }];
  if (host === 'public.example') return [{ address: '93.184.216.34', family: 4 }];
  throw new Error('ENOTFOUND');
};

async function listen(app: express.Express): Promise<string> {
  const server: Server = await new Promise((r) => {
    const s = app.listen(0, '127.0.0.1', () => r(s));
  });
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const receiver = (answer?: Receiver['answer']) => w.receiver(answer);
const as = (c: Customer) => ({
  get: (path: string) => signedCall(base, c.key, 'GET', path),
  post: (path: string, body?: unknown) => signedCall(base, c.key, 'POST', path, body),
  patch: (path: string, body: unknown) => signedCall(base, c.key, 'PATCH', path, body),
  del: (path: string) => signedCall(base, c.key, 'DELETE', path),
});
const signed = (secret: string, r: ReceivedRequest) =>
  verifySignature(secret, { timestamp: r.headers['x-api-timestamp'], signature: r.headers['x-api-sign'] }, r.raw, Math.floor(Date.now() / 1000));

beforeAll(async () => {
  w = await startWebhookWorld('whapi', { BUDGET_CHALLENGE_PER_IP_PER_MIN: '100000', BUDGET_PROOFS_PER_IP_PER_MIN: '100000', BUDGET_READS_PER_SEC: '100000', BUDGET_WRITES_PER_SEC: '100000' });
  ({ rt, bus } = w);
  base = await listen(createApp({ rt, bus, webhooks: { ca: testCa().ca, resolve } }));
  // A second app would register its metrics twice: the webhook routes alone, as production configures them.
  const strictRt: Runtime = { ...rt, cfg: { ...rt.cfg, WEBHOOK_ALLOW_PRIVATE_TARGETS: false } };
  const strict = express();
  strict.locals.rt = strictRt;
  strict.use(requestId, jsonBody, webhooksRouter({ rt: strictRt, bus, validator: new RequestValidator(buildDocument()), resolve }), errorHandler);
  strictBase = await listen(strict);
  customer = await signUp(base);
});

afterAll(() => w?.stop(() => Promise.allSettled(servers.map((s) => new Promise((r) => s.close(r))))));

test('credentials: none is 401, the bootstrap token is 401, a key without the scope is 403', async () => {
  expect((await call(base, 'GET', '/v1/webhooks')).status).toBe(401);
  const bootstrap = await call(base, 'GET', '/v1/webhooks', { headers: { authorization: `Bearer ${customer.token}` } });
  expect(bootstrap.status).toBe(401);
  const readOnly = await signUp(base, ['webhooks.read']);
  expect((await as(readOnly).get('/v1/webhooks')).status).toBe(200);
  const denied = await as(readOnly).post('/v1/webhooks', { url: 'https://public.example/x' });
  expect(denied.status).toBe(403);
  expect(denied.body.error).toMatchObject({ code: 1015, details: { scope: 'webhooks.write' } });
});

test('two endpoints: the first takes primary, the next backup, a third is 409 3021; secrets only in the create answer', async () => {
  const c = await signUp(base);
  const first = await as(c).post('/v1/webhooks', { url: 'https://public.example/a' });
  expect(first.status).toBe(201);
  expect(first.body).toMatchObject({ id: expect.stringMatching(/^whk_/), url: 'https://public.example/a', role: 'primary', events: null, is_active: true, last_delivery_at: null, last_delivery_status: null, secret: expect.stringMatching(/^whsec_/) });
  const second = await as(c).post('/v1/webhooks', { url: 'https://public.example/b', events: ['order.failed'] });
  expect(second.body).toMatchObject({ role: 'backup', events: ['order.failed'] });
  const third = await as(c).post('/v1/webhooks', { url: 'https://public.example/c' });
  expect(third.status).toBe(409);
  expect(third.body.error.code).toBe(3021);
  const list = await as(c).get('/v1/webhooks');
  expect(list.body).toMatchObject({ max_endpoints: 2, roles: ['primary', 'backup'] });
  expect(list.body.data.map((e: { id: string }) => e.id).sort()).toEqual([first.body.id, second.body.id].sort());
  expect(list.text).not.toContain('whsec_');
  const one = await as(c).get(`/v1/webhooks/${first.body.id}`);
  expect(one.body).not.toHaveProperty('secret');
  const { rows } = await rt.pool.query('SELECT secret_sealed FROM webhook_endpoints WHERE id = $1', [first.body.id]);
  expect(rows[0].secret_sealed).not.toContain(first.body.secret.slice(6));
  // Another account's endpoint is indistinguishable from a missing one.
  expect((await as(customer).get(`/v1/webhooks/${first.body.id}`)).status).toBe(404);
  expect((await as(customer).del(`/v1/webhooks/${first.body.id}`)).status).toBe(404);
});

test('every rejected URL form answers 422 3020 with the reason, on create and on edit', async () => {
  const c = await signUp(base);
  const post = (url: string) => signedCall(strictBase, c.key, 'POST', '/v1/webhooks', { url });
  const cases: Array<[string, string]> = [
    ['http://public.example/x', 'not_https'],
    ['https://user:pw@public.example/x', 'credentials'],
    [`https://public.example/${'a'.repeat(2048)}`, 'too_long'],
    ['not a url', 'invalid_url'],
    ['https://localhost/x', 'localhost'],
    ['https://127.0.0.1/x', 'forbidden_address'],
    ['https://[::1]/x', 'forbidden_address'],
    ['https://[::ffff:127.0.0.1]/x', 'forbidden_address'],
    // IPv6 forms embedding IPv4 are judged by the IPv4 inside (issue 12, item 4).
    ['https://[64:ff9b:1::a9fe:a9fe]/', 'forbidden_address'],
    ['https://[64:ff9b::a9fe:a9fe]/', 'forbidden_address'],
    ['https://[::ffff:0:7f00:1]/', 'forbidden_address'],
    ['https://[::a9fe:a9fe]/', 'forbidden_address'],
    ['https://[2002:a9fe:a9fe::1]/', 'forbidden_address'],
    ['https://[2001:0:7f00:1::]/', 'forbidden_address'],
    ['https://10.1.2.3/x', 'forbidden_address'],
    ['https://172.16.5.4/x', 'forbidden_address'],
    ['https://192.168.1.1/x', 'forbidden_address'],
    ['https://169.254.169.254/latest/meta-data', 'forbidden_address'],
    ['https://100.64.0.1/x', 'forbidden_address'],
    ['https://224.0.0.1/x', 'forbidden_address'],
    ['https://240.0.0.1/x', 'forbidden_address'],
    ['https://0.0.0.0/x', 'forbidden_address'],
    ['https://[fe80::1]/x', 'forbidden_address'],
    ['https://[fc00::1]/x', 'forbidden_address'],
    ['https://2130706433/x', 'forbidden_address'],
    ['https://receiver.test/x', 'forbidden_address'],
    ['https://nowhere.invalid/x', 'forbidden_address'], // one reason for every name refused (issue 31): no DNS oracle
  ];
  for (const [url, reason] of cases) {
    const res = await post(url);
    expect({ url, status: res.status, code: res.body.error?.code, reason: res.body.error?.details?.reason }).toEqual({ url, status: 422, code: 3020, reason });
  }
  const ok = await post('https://public.example/ok');
  expect(ok.status).toBe(201);
  const edit = await signedCall(strictBase, c.key, 'PATCH', `/v1/webhooks/${ok.body.id}`, { url: 'https://receiver.test/x' });
  expect(edit.status).toBe(422);
  expect(edit.body.error.details.reason).toBe('forbidden_address');
  const bad = await signedCall(strictBase, c.key, 'POST', '/v1/webhooks', { url: 'https://public.example/x', extra: 1 });
  expect(bad.status).toBe(400);
});

test('PATCH role primary on the backup swaps both; is_active and events edit; DELETE frees the role', async () => {
  const c = await signUp(base);
  const primary = (await as(c).post('/v1/webhooks', { url: 'https://public.example/p' })).body;
  const backup = (await as(c).post('/v1/webhooks', { url: 'https://public.example/b' })).body;
  const swapped = await as(c).patch(`/v1/webhooks/${backup.id}`, { role: 'primary' });
  expect(swapped.status).toBe(200);
  expect(swapped.body.role).toBe('primary');
  expect((await as(c).get(`/v1/webhooks/${primary.id}`)).body.role).toBe('backup');
  const paused = await as(c).patch(`/v1/webhooks/${primary.id}`, { is_active: false, events: ['balance.credited'] });
  expect(paused.body).toMatchObject({ is_active: false, events: ['balance.credited'], role: 'backup' });
  expect((await as(c).patch(`/v1/webhooks/${primary.id}`, { events: null })).body.events).toBeNull();
  expect((await as(c).del(`/v1/webhooks/${backup.id}`)).status).toBe(204);
  expect((await as(c).get(`/v1/webhooks/${backup.id}`)).status).toBe(404);
  const again = await as(c).post('/v1/webhooks', { url: 'https://public.example/again' });
  expect(again.body.role).toBe('primary');
});

test('the test delivery: signed, test: true, 512-byte excerpt, not retried, not in the log; rotation takes effect at once', async () => {
  const ok = await receiver(() => ({ status: 201, body: 'x'.repeat(1000) }));
  const c = await signUp(base);
  const ep = (await as(c).post('/v1/webhooks', { url: ok.url.replace('127.0.0.1', 'receiver.test') })).body;
  const res = await as(c).post(`/v1/webhooks/${ep.id}/test`, { event: 'order.confirmed' });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ delivered: true, event: 'order.confirmed', delivery_id: expect.stringMatching(/^dlv_/), response_status: 201, error: null, duration_ms: expect.any(Number) });
  expect(res.body.response_body_excerpt).toBe('x'.repeat(512));
  const r = ok.requests[0];
  expect(signed(ep.secret, r)).toBe(true);
  expect(parseJson(r.raw.toString())).toMatchObject({ event: 'order.confirmed', test: true, account_id: c.accountId, data: { order_id: expect.any(String) } });
  expect(r.headers['x-delivery-id']).toBe(res.body.delivery_id);

  const rotated = await as(c).post(`/v1/webhooks/${ep.id}/rotate-secret`);
  expect(rotated.body).toEqual({ id: ep.id, secret: expect.stringMatching(/^whsec_/) });
  await as(c).post(`/v1/webhooks/${ep.id}/test`);
  expect(signed(rotated.body.secret, ok.requests[1])).toBe(true);
  expect(signed(ep.secret, ok.requests[1])).toBe(false);

  const failing = await receiver(() => ({ status: 500, body: 'nope' }));
  await as(c).patch(`/v1/webhooks/${ep.id}`, { url: failing.url });
  // (A body unlike the call before: the same signed request twice within a second is a replay.)
  const failed = await as(c).post(`/v1/webhooks/${ep.id}/test`, {});
  expect(failed.body).toMatchObject({ delivered: false, event: 'balance.credited', response_status: 500, response_body_excerpt: 'nope', error: null });
  await new Promise((r) => setTimeout(r, 1_000));
  expect(failing.requests).toHaveLength(1);
  expect((await as(c).get(`/v1/webhooks/${ep.id}/deliveries`)).body).toEqual({ data: [], next_cursor: null });
});

test('the test delivery tells no port from another: refused, plain-TCP and closed ports all read connection_failed', async () => {
  const c = await signUp(base);
  const ep = (await as(c).post('/v1/webhooks', { url: 'https://127.0.0.1:9/x' })).body;
  // An open port that speaks no TLS (this API itself), and a port nothing listens on.
  const plain = new URL(base).port;
  const closed = await new Promise<number>((r) => {
    const s = express().listen(0, '127.0.0.1', () => {
      const port = (s.address() as AddressInfo).port;
      s.close(() => r(port));
    });
  });
  const answers = [];
  for (const port of [plain, closed]) {
    await as(c).patch(`/v1/webhooks/${ep.id}`, { url: `https://127.0.0.1:${port}/x` });
    answers.push((await as(c).post(`/v1/webhooks/${ep.id}/test`, { event: 'balance.credited' })).body);
  }
  for (const a of answers) expect(a).toMatchObject({ delivered: false, response_status: null, response_body_excerpt: null, error: 'connection_failed' });
});

test('the delivery log: newest first, cursor paging, API key with webhooks.read or a session', async () => {
  const rcv = await receiver();
  const c = await signUp(base);
  const ep = (await as(c).post('/v1/webhooks', { url: rcv.url })).body;
  for (const amount of [1n, 2n, 3n]) await credit(bus, c.accountId, amount);
  await eventually(async () => rcv.requests.length === 3, 30_000, 'three deliveries');
  const all = await eventually(async () => {
    const page = await as(c).get(`/v1/webhooks/${ep.id}/deliveries`);
    return page.body.data.every((d: { state: string }) => d.state === 'delivered') && page.body.data.length === 3 && page.body;
  }, 10_000, 'the log');
  expect(all.data[0]).toEqual({
    id: expect.stringMatching(/^dlv_/), event_id: expect.stringMatching(/^evt_/), event: 'balance.credited', attempt: 1, state: 'delivered',
    response_status: 200, error: null, next_attempt_at: null, delivered_at: expect.any(String), created_at: expect.any(String), updated_at: expect.any(String),
  });
  const amounts = all.data.map((d: { event_id: string }) => {
    const r = rcv.requests.find((x) => x.headers['x-event-id'] === d.event_id)!;
    return (parseJson(r.raw.toString()) as { data: { amount_sun: number } }).data.amount_sun;
  });
  expect(amounts).toEqual([3, 2, 1]);

  const first = await as(c).get(`/v1/webhooks/${ep.id}/deliveries?limit=2`);
  expect(first.body.data).toHaveLength(2);
  const second = await as(c).get(`/v1/webhooks/${ep.id}/deliveries?limit=2&cursor=${first.body.next_cursor}`);
  expect(second.body).toEqual({ data: [all.data[2]], next_cursor: null });
  expect((await as(c).get(`/v1/webhooks/${ep.id}/deliveries?limit=500`)).status).toBe(400);
  expect((await as(c).get(`/v1/webhooks/${ep.id}/deliveries?cursor=bad`)).status).toBe(400);

  const session = await signIn(base, c.wallet);
  const bySession = await call(base, 'GET', `/v1/webhooks/${ep.id}/deliveries`, { headers: sessionHeaders(session, false) });
  expect(bySession.status).toBe(200);
  expect(bySession.body.data).toHaveLength(3);
  const noScope = await signUp(base, ['balance.read']);
  expect((await as(noScope).get(`/v1/webhooks/${ep.id}/deliveries`)).status).toBe(403);
});
