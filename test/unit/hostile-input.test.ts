/**
 * Text PostgreSQL cannot store (U+0000, lone surrogates), leap-second and out-of-range date-times, and
 * crafted cursors are refused at the edge with 400 2000 naming the field (issue 12, items 1 and 2).
 */
import express from 'express';
import { jsonBody } from '../../services/api/body';
import { createdCursorCodec, cursorInstant, cursorSeq } from '../../services/api/cursor';
import { errorHandler } from '../../services/api/errors';
import type { OpenApiDocument } from '../../services/api/openapi/operation';
import { RequestValidator, storableDateTime } from '../../services/api/validate';
import { signatureSingleUse, timestampInWindow } from '../../services/identity/request-signing';
import { storableText, unstorableField } from '../../services/identity/text-rules';
import { listen } from '../support/http';

test('storable text: no U+0000, no unpaired surrogate; pairs and other controls are fine', () => {
  expect(storableText('plain')).toBe(true);
  expect(storableText('emoji \u{1F600} ok')).toBe(true);
  expect(storableText('tab\tand\u0001')).toBe(true);
  expect(storableText('x\u0000y')).toBe(false);
  expect(storableText('lone \uD800 high')).toBe(false);
  expect(storableText('lone \uDC00 low')).toBe(false);
  expect(storableText('\uDC00\uD800')).toBe(false);
  expect(storableText('end\uD83D')).toBe(false);
});

test('the first unstorable field of a body is named, keys included', () => {
  expect(unstorableField({ a: 'ok', items: [{ r: 'ok' }, { r: 'x\u0000' }] })).toBe('items[1].r');
  expect(unstorableField({ ['k\u0000']: 1 })).toBe('k\uFFFD');
  expect(unstorableField({ a: 1, b: null, c: true, d: 10n })).toBeNull();
  expect(unstorableField('\uD800', '')).toBe('body');
});

test('date-times: RFC 3339 instants a Date and timestamptz can hold', () => {
  expect(storableDateTime('2024-12-31T23:59:59Z')).toBe(true);
  expect(storableDateTime('2024-12-31T23:59:59.123+02:00')).toBe(true);
  expect(storableDateTime('2024-12-31T23:59:60Z')).toBe(false);
  expect(storableDateTime('0000-01-01T00:00:00Z')).toBe(false);
  expect(storableDateTime('2024-02-30T00:00:00Z')).toBe(false);
  expect(storableDateTime('2024-01-01')).toBe(false);
});

test('crafted cursors: year -10000, past 9999, sequence past int64 are refused; normal values pass', () => {
  expect(cursorInstant('2025-01-01T00:00:00.000Z').toISOString()).toBe('2025-01-01T00:00:00.000Z');
  expect(cursorInstant(1_700_000_000_000).getTime()).toBe(1_700_000_000_000);
  for (const bad of ['-010000-01-01T00:00:00.000Z', '+010000-01-01T00:00:00.000Z', 'nope', '']) {
    expect(() => cursorInstant(bad)).toThrow(expect.objectContaining({ slug: 'invalid_request', details: { field: 'cursor' } }));
  }
  expect(() => cursorInstant(999_999_999_999_999)).toThrow();
  expect(cursorSeq('9223372036854775807')).toBe(9_223_372_036_854_775_807n);
  expect(() => cursorSeq('9223372036854775808')).toThrow();
  expect(() => cursorSeq('-1')).toThrow();
});

test('list cursors (orders, batches, subscriptions): `<ms>:<id>` in base64url round-trips; another kind of id or a crafted instant is refused', () => {
  const orders = createdCursorCodec('ord');
  const at = { createdAt: new Date(1_700_000_000_123), id: `ord_${'ab'.repeat(12)}` };
  const text = orders.encode(at);
  expect(Buffer.from(text, 'base64url').toString('utf8')).toBe(`1700000000123:${at.id}`);
  expect(orders.decode(text)).toEqual(at);
  const refused = expect.objectContaining({ slug: 'invalid_request', details: { field: 'cursor' } });
  expect(() => createdCursorCodec('bat').decode(text)).toThrow(refused);
  expect(() => orders.decode(Buffer.from(`999999999999999:${at.id}`).toString('base64url'))).toThrow(refused);
  expect(() => orders.decode(Buffer.from(`1:${at.id}x`).toString('base64url'))).toThrow(refused);
});

test('signed requests: Unix seconds or 13-digit milliseconds; only POST, PATCH, DELETE signatures are single use', () => {
  const now = 1_763_765_000_123;
  expect(timestampInWindow('1763765000', now)).toBe(true);
  expect(timestampInWindow('1763765000999', now)).toBe(true);
  expect(timestampInWindow(String(now + 300_000), now)).toBe(true);
  expect(timestampInWindow(String(now + 300_001), now)).toBe(false);
  expect(timestampInWindow('17637650001234', now)).toBe(false);
  expect(['GET', 'HEAD'].map(signatureSingleUse)).toEqual([false, false]);
  expect(['POST', 'PATCH', 'DELETE', 'PUT'].map(signatureSingleUse)).toEqual([true, true, true, true]);
});

const doc: OpenApiDocument = {
  openapi: '3.1.0', info: { title: 't', version: '1', description: 't' }, servers: [], components: { schemas: {} },
  paths: {
    '/things/{thingId}': {
      post: {
        operationId: 'postThing', summary: 'x',
        parameters: [{ name: 'thingId', in: 'path', required: true, schema: { type: 'string' } }, { name: 'after', in: 'query', schema: { type: 'string', format: 'date-time' } }, { name: 'who', in: 'query', schema: { type: 'string' } }],
        requestBody: { required: false, content: { 'application/json': { schema: { type: 'object', additionalProperties: false, properties: { memo: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } } } } } } },
        responses: { '200': { description: 'ok' } },
      },
    },
  },
};

let server: { base: string; close: () => Promise<void> };
beforeAll(async () => {
  const app = express();
  const v = new RequestValidator(doc);
  app.use(jsonBody);
  app.post('/things/:thingId', v.for('postThing'), (_req, res) => res.json({ ok: true }));
  app.use(errorHandler);
  server = await listen(app);
});
afterAll(() => server.close());

async function post(path: string, raw?: string) {
  const res = await fetch(server.base + path, { method: 'POST', headers: raw ? { 'content-type': 'application/json' } : {}, body: raw });
  return { status: res.status, body: (await res.json()) as any };
}

test.each([
  ['/things/a%00b', undefined, 'thingId'],
  ['/things/a?who=x%00', undefined, 'who'],
  ['/things/a?after=2024-12-31T23:59:60Z', undefined, 'after'],
  ['/things/a', '{"memo":"x\\u0000y"}', 'memo'],
  ['/things/a', '{"tags":["ok","\\ud800"]}', 'tags[1]'],
])('%s %s answers 400 2000 naming %s', async (path, raw, field) => {
  const res = await post(path, raw);
  expect([res.status, res.body.error.code, res.body.error.details]).toEqual([400, 2000, { field }]);
});

test('the same request without the hostile value passes', async () => {
  expect((await post('/things/ab?who=x&after=2024-12-31T23:59:59Z', '{"memo":"xy","tags":["\\ud83d\\ude00"]}')).status).toBe(200);
});
