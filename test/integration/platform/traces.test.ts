/**
 * Traces that arrive (issue 30, item 4): the service started with OTEL_TRACES_EXPORTER=otlp sends its spans
 * over OTLP/HTTP to a real receiver in this test; a request's HTTP span and the processor's span applying its
 * command (carried through the log in the record's traceparent) are one trace; an order's trace goes on
 * through delivery, the broadcaster's and the confirmer's spans (on a devnet of the test's own) under the trace
 * of its POST. Every request has one log line (method, route, status, duration, request id, account id when
 * known) carrying the same trace id.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Runtime } from '../../../services/runtime';
import type { CommandBus } from '../../../services/platform/command-bus';
import { startDevnet, type Devnet } from '../../devnet/start-devnet';
import { OPEN_BUDGETS, signedCall, signUp } from '../../support/identity';
import { fundedCustomer, isDelivered, orderCall, orderUntil } from '../../support/orders';
import { startService, type ServiceProcess } from '../../support/service-process';
import { dropWorld, newWorld, openBus, openRuntime, type World } from '../../support/world';

const PORT = String(Number(process.env.API_PORT ?? 13100) + 52);
const base = `http://127.0.0.1:${PORT}`;
let world: World;
let service: ServiceProcess | undefined;
let receiver: http.Server;
let devnet: Devnet;
let rt: Runtime;
let bus: CommandBus;
/** order_delivery_seconds_count as last scraped (once at least 1). */
let deliveryCount: number | undefined;

interface Span { traceId: string; spanId: string; parentSpanId?: string; name: string; attributes?: Array<{ key: string; value: { stringValue?: string } }> }
const spans: Span[] = [];

beforeAll(async () => {
  // The OTLP/HTTP receiver: JSON export requests on /v1/traces, answered as a collector does.
  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      if (req.url === '/v1/traces' && req.method === 'POST') {
        const doc = JSON.parse(body) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: Span[] }> }> };
        for (const rs of doc.resourceSpans) for (const ss of rs.scopeSpans) spans.push(...ss.spans);
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  devnet = await startDevnet({ DEVNET_BLOCK_MS: '300' });
  world = newWorld('traces', { ...OPEN_BUDGETS, TRON_FULL_HOST: devnet.url });
  rt = await openRuntime(world);
  bus = await openBus(rt);
  service = startService(world, 'api,processor,relay,broadcaster,confirmer', {
    API_PORT: PORT, OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, LOG_LEVEL: 'info',
  });
  await service.ready;
}, 180_000);
afterAll(async () => {
  await service?.kill();
  await bus?.stop();
  await rt?.close();
  await new Promise((r) => receiver?.close(r));
  await devnet?.stop();
  await dropWorld(world);
});

const orderIdOf = (s: Span) => s.attributes?.find((a) => a.key === 'order.id')?.value.stringValue;

async function until<T>(what: string, read: () => T | undefined, ms = 20_000, refresh?: () => Promise<void>): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    await refresh?.();
    const v = read();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`${what} not seen; spans received: ${spans.map((s) => s.name).join(", ")}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function requestLines(): Array<Record<string, unknown>> {
  return service!.output().split('\n').filter((l) => l.includes('"msg":"request"')).map((l) => JSON.parse(l) as Record<string, unknown>);
}

test('a command\'s HTTP request and the processor applying it are one trace at the OTLP receiver, and its log line names it', async () => {
  const customer = await signUp(base);
  // The account was created by a command: its HTTP span (POST /v1/accounts) and the processor's span share a trace.
  const applied = await until('processor span', () => spans.find((s) => s.name === 'processor apply account.create'));
  // The request's span ends after its answer, so it may reach the receiver in a later export than the processor's.
  await until('HTTP span of the trace', () => spans.find((s) => s.traceId === applied.traceId && /POST/.test(s.name) && !s.parentSpanId));
  const trace = spans.filter((s) => s.traceId === applied.traceId);
  // The processor's span hangs off a span of that request (the parent came through the log in the record's header).
  expect(trace.map((s) => s.spanId)).toContain(applied.parentSpanId);

  // The request's one log line: method, route, status, duration, request id, and the same trace id.
  const line = await until('request line', () => requestLines().find((l) => l.route === '/v1/accounts' && l.method === 'POST'));
  expect(line).toMatchObject({ status: 201, trace_id: applied.traceId });
  expect(typeof line.duration_ms).toBe('number');
  expect(line.request_id).toMatch(/^request_|^req_/);

  // A signed call: its line carries the account, and the request id the customer was answered with.
  const answer = await signedCall(base, customer.key, 'GET', '/v1/account');
  expect(answer.status).toBe(200);
  const requestId = answer.headers.get('x-request-id');
  const signed = await until('signed request line', () => requestLines().find((l) => l.request_id === requestId));
  expect(signed).toMatchObject({ method: 'GET', route: '/v1/account', status: 200, account_id: customer.accountId });
  expect(signed.trace_id).toMatch(/^[0-9a-f]{32}$/);
  expect(signed.span_id).toMatch(/^[0-9a-f]{16}$/);
}, 120_000);

test('one order is one trace: its POST, the processor, the broadcaster and the confirmer', async () => {
  const customer = await fundedCustomer({ base, bus }, 100_000_000_000n);
  const stack = { base, rt };
  const placed = await orderCall(stack, customer, 'POST', '/v1/orders', { resource: 'energy', amount: 65_000, tier: '1h', receiver: devnet.accounts.customers[1].address });
  expect(placed.status).toBe(201);
  const orderId = placed.body.id as string;
  await orderUntil(stack, customer, orderId, isDelivered, 60_000);

  const settled = await until('confirmer span', () => spans.find((s) => s.name === 'confirmer settle' && orderIdOf(s) === orderId), 30_000);
  // The trace starts at the order's HTTP request ...
  await until('HTTP span of the order', () => spans.find((s) => s.traceId === settled.traceId && /POST/.test(s.name) && !s.parentSpanId));
  const trace = spans.filter((s) => s.traceId === settled.traceId);
  const names = trace.map((s) => s.name);
  // ... and holds the processor's apply of its creation ...
  expect(names).toContain('processor apply order.create');
  // ... and the delivery roles' spans of this order, under the same trace.
  const ofOrder = trace.filter((s) => orderIdOf(s) === orderId).map((s) => s.name);
  expect(ofOrder).toEqual(expect.arrayContaining(['broadcaster allocate', 'broadcaster broadcast', 'confirmer settle']));
  // Each delivery span hangs off a span of that trace (the context the processor stored with the order).
  const ids = new Set(trace.map((s) => s.spanId));
  for (const s of trace.filter((x) => orderIdOf(x) === orderId)) expect([s.name, ids.has(s.parentSpanId ?? '')]).toEqual([s.name, true]);

  // The relay published its order.active: the delivery latency histogram (created -> active) counts it.
  const count = await until('order_delivery_seconds sample', () => deliveryCount, 10_000, async () => {
    const text = await fetch(`${base}/metrics`).then((r) => r.text());
    const m = /^order_delivery_seconds_count (\d+)/m.exec(text);
    deliveryCount = m && Number(m[1]) >= 1 ? Number(m[1]) : undefined;
  });
  expect(count).toBe(1);
}, 150_000);
