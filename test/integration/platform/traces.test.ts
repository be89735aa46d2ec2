/**
 * Traces that arrive (issue 30, item 4): the service started with OTEL_TRACES_EXPORTER=otlp sends its spans
 * over OTLP/HTTP to a real receiver in this test; a request's HTTP span and the processor's span applying its
 * command (carried through the log in the record's traceparent) are one trace. Every request has one log line
 * (method, route, status, duration, request id, account id when known) carrying the same trace id.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { OPEN_BUDGETS, signedCall, signUp } from '../../support/identity';
import { startService, type ServiceProcess } from '../../support/service-process';
import { dropWorld, newWorld, openRuntime, type World } from '../../support/world';

const PORT = String(Number(process.env.API_PORT ?? 13100) + 52);
const base = `http://127.0.0.1:${PORT}`;
let world: World;
let service: ServiceProcess | undefined;
let receiver: http.Server;

interface Span { traceId: string; spanId: string; parentSpanId?: string; name: string }
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
  world = newWorld('traces', OPEN_BUDGETS);
  await (await openRuntime(world)).close();
  service = startService(world, 'api,processor,relay', { API_PORT: PORT, OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, LOG_LEVEL: 'info' });
  await service.ready;
}, 180_000);
afterAll(async () => {
  await service?.kill();
  await new Promise((r) => receiver?.close(r));
  await dropWorld(world);
});

async function until<T>(what: string, read: () => T | undefined, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
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
  const trace = spans.filter((s) => s.traceId === applied.traceId);
  const httpSpan = trace.find((s) => /POST/.test(s.name) && !s.parentSpanId);
  expect(httpSpan).toBeDefined();
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
