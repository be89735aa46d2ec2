/**
 * The API skeleton on the real stack: health, readiness of every dependency, metrics with consumer lag,
 * the OpenAPI document, request ids on every answer, the error envelope, strict JSON.
 */
import { createApp } from '../../services/api/app';
import type { CommandBus } from '../../services/platform/command-bus';
import type { Runtime } from '../../services/runtime';
import { listen } from '../support/http';
import { dropWorld, newWorld, openBus, openRuntime, type World } from '../support/world';

let world: World;
let rt: Runtime;
let bus: CommandBus;
let api: { base: string; close: () => Promise<void> };

beforeAll(async () => {
  world = newWorld('apiskeleton');
  rt = await openRuntime(world);
  bus = await openBus(rt);
  api = await listen(createApp({ rt, bus }));
});

afterAll(async () => {
  await api?.close();
  await bus?.stop();
  if (world) await dropWorld(world, rt);
  await rt?.close();
});

test('healthz and readyz answer, naming every dependency', async () => {
  const health = await fetch(`${api.base}/healthz`);
  expect(health.status).toBe(200);
  // A check may time out once on a loaded machine (it answered 503 once beside other files in CI): readiness is
  // asked again for a while, as a load balancer would, and must come with every dependency named ok.
  let ready = await fetch(`${api.base}/readyz`);
  for (let i = 0; i < 20 && ready.status !== 200; i++) {
    await new Promise((r) => setTimeout(r, 500));
    ready = await fetch(`${api.base}/readyz`);
  }
  // The body first: on a failure it names the dependency that was not ok.
  expect(await ready.json()).toEqual({ ready: true, checks: { kafka: 'ok', schema_registry: 'ok', postgres: 'ok', redis: 'ok' } });
  expect(ready.status).toBe(200);
});

test('metrics expose consumer lag per partition of account-commands', async () => {
  const bodyOf = async () => (await fetch(`${api.base}/metrics`)).text();
  const command = bus.stamp({ type: 'account.create', accountId: 'acc_lag', brand: rt.cfg.BRAND, network: rt.cfg.NETWORK, ownerAddress: null, displayName: null }, false);
  await bus.append([command]);
  const text = await bodyOf();
  const lagLines = text.split('\n').filter((l) => l.startsWith('consumer_lag_records{'));
  expect(lagLines).toHaveLength(3);
  // Nothing applies in this world (no processor runs), so the appended command shows as lag.
  const total = lagLines.reduce((sum, l) => sum + Number(l.split(' ').pop()), 0);
  expect(total).toBe(1);
  expect(text).toContain('http_requests_total');
});

test('the OpenAPI 3.1 document is served', async () => {
  const res = await fetch(`${api.base}/v1/openapi.json`);
  expect(res.status).toBe(200);
  const doc = (await res.json()) as { openapi: string; paths: Record<string, unknown>; components: { schemas: Record<string, unknown> } };
  expect(doc.openapi).toBe('3.1.0');
  expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/healthz', '/readyz', '/metrics', '/v1/openapi.json']));
  expect(doc.components.schemas.ErrorEnvelope).toBeDefined();
});

test('errors use the envelope with the request id, and every answer carries X-Request-Id', async () => {
  const res = await fetch(`${api.base}/v1/nothing-here`);
  expect(res.status).toBe(404);
  const requestId = res.headers.get('x-request-id');
  expect(requestId).toMatch(/^req_[0-9a-f]{24}$/);
  expect(await res.json()).toEqual({ error: { code: 3001, slug: 'not_found', message: 'No such endpoint.', details: null }, request_id: requestId });
  const ok = await fetch(`${api.base}/healthz`);
  expect(ok.headers.get('x-request-id')).toMatch(/^req_/);
});

test('bad JSON answers 400 2000 without a stack trace', async () => {
  const res = await fetch(`${api.base}/v1/openapi.json`, { method: 'GET', headers: { 'content-type': 'application/json' }, body: undefined });
  expect(res.status).toBe(200);
  const bad = await fetch(`${api.base}/v1/orders`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a": ' });
  expect(bad.status).toBe(400);
  const body = (await bad.json()) as { error: unknown };
  expect(body.error).toMatchObject({ code: 2000, slug: 'invalid_request', details: { field: 'body' } });
  expect(JSON.stringify(body)).not.toMatch(/at .*\.ts|Error:/);
  const notJson = await fetch(`${api.base}/v1/orders`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hello' });
  expect(notJson.status).toBe(400);
});

test('a body sent to a route that does not exist is never read or parsed: 404, whatever it holds', async () => {
  const bad = await fetch(`${api.base}/v1/anything`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a": ' });
  expect(bad.status).toBe(404);
  expect(((await bad.json()) as { error: unknown }).error).toMatchObject({ slug: 'not_found' });
  // Past the body limit too: refused as not found, not as too large, since nothing was read.
  const large = await fetch(`${api.base}/v1/orders/ord_x/nothing`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: 'x'.repeat(300 * 1024) });
  expect(large.status).toBe(404);
});

test('a query parameter an operation does not declare answers 400 2000', async () => {
  const res = await fetch(`${api.base}/v1/openapi.json?debug=1`);
  expect(res.status).toBe(400);
  expect(((await res.json()) as { error: unknown }).error).toMatchObject({ code: 2000, details: { field: "debug" } });
});
