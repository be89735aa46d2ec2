/** The body reader: the plain case read directly, everything else through express.raw, one answer for both. */
import express from 'express';
import http from 'node:http';
import { gzipSync } from 'node:zlib';
import { jsonBody } from '../../services/api/body';
import { errorHandler, sendJson } from '../../services/api/errors';
import { isConnectionError } from '../../services/platform/db/pool';
import { parseJson } from '../../services/platform/json';
import { listen } from '../support/http';

let server: Awaited<ReturnType<typeof listen>>;
beforeAll(async () => {
  const app = express();
  app.use(jsonBody);
  app.post('/echo', (req, res) => sendJson(res, 200, { body: req.body ?? null, raw: req.rawBody?.toString('base64') ?? null }));
  app.use(errorHandler);
  server = await listen(app);
});
afterAll(() => server.close());

function send(headers: Record<string, string | number>, chunks: Buffer[]): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const url = new URL(`${server.base}/echo`);
    const req = http.request({ host: url.hostname, port: url.port, method: 'POST', path: url.pathname, headers }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c) => parts.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: parseJson(Buffer.concat(parts).toString('utf8')) }));
    });
    req.on('error', reject);
    for (const c of chunks) req.write(c);
    req.end();
  });
}

const json = { a: 1, big: '9007199254740993', s: 'x'.repeat(10) };
const text = JSON.stringify(json).replace('"9007199254740993"', '9007199254740993');

test('a Content-Length body is parsed (int64 kept) and its exact bytes kept for the signature', async () => {
  const raw = Buffer.from(text);
  const r = await send({ 'content-type': 'application/json', 'content-length': raw.length }, [raw.subarray(0, 5), raw.subarray(5)]);
  expect(r.status).toBe(200);
  expect(r.body.raw).toBe(raw.toString('base64'));
  expect(r.body.body).toEqual({ a: 1, big: 9007199254740993n, s: json.s });
});

test('a body in many chunks near the limit is read whole; past the limit it is refused (400 2000)', async () => {
  const big = Buffer.from(JSON.stringify({ s: 'y'.repeat(250 * 1024) }));
  const pieces = Array.from({ length: Math.ceil(big.length / 4096) }, (_, i) => big.subarray(i * 4096, (i + 1) * 4096));
  const ok = await send({ 'content-type': 'application/json', 'content-length': big.length }, pieces);
  expect(ok.status).toBe(200);
  expect(Buffer.from(ok.body.raw, 'base64').equals(big)).toBe(true);
  const tooBig = Buffer.from(JSON.stringify({ s: 'y'.repeat(300 * 1024) }));
  const refused = await send({ 'content-type': 'application/json', 'content-length': tooBig.length }, [tooBig]);
  expect([refused.status, refused.body.error.code]).toEqual([400, 2000]);
});

test('chunked and gzip bodies still go through express.raw (inflated, then parsed)', async () => {
  const chunked = await send({ 'content-type': 'application/json', 'transfer-encoding': 'chunked' }, [Buffer.from(text.slice(0, 4)), Buffer.from(text.slice(4))]);
  expect([chunked.status, chunked.body.raw]).toEqual([200, Buffer.from(text).toString('base64')]);
  const zipped = gzipSync(Buffer.from(text));
  const gz = await send({ 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': zipped.length }, [zipped]);
  expect([gz.status, gz.body.body]).toEqual([200, { a: 1, big: 9007199254740993n, s: json.s }]);
  const odd = await send({ 'content-type': 'application/json', 'content-encoding': 'snappy', 'content-length': 2 }, [Buffer.from('{}')]);
  expect([odd.status, odd.body.error.code]).toEqual([400, 2000]);
});

test('no body, an empty one, bad JSON and a non-JSON type answer as before', async () => {
  expect((await send({}, [])).body).toEqual({ body: null, raw: '' });
  expect((await send({ 'content-length': 0 }, [])).body).toEqual({ body: null, raw: '' });
  const bad = await send({ 'content-type': 'application/json', 'content-length': 5 }, [Buffer.from('{"a":')]);
  expect([bad.status, bad.body.error.code, bad.body.error.message]).toEqual([400, 2000, 'The body is not valid JSON.']);
  const dup = await send({ 'content-type': 'application/json', 'content-length': 13 }, [Buffer.from('{"a":1,"a":2}')]);
  expect([dup.status, dup.body.error.code]).toEqual([400, 2000]);
  const form = await send({ 'content-type': 'text/plain', 'content-length': 2 }, [Buffer.from('{}')]);
  expect([form.status, form.body.error.message]).toEqual([400, 'The body must be JSON (Content-Type: application/json).']);
});

test('a client gone mid-body is the client\'s error (400 2000, to a closed socket), never taken for the database away', async () => {
  const seen: unknown[] = [];
  const app = express();
  app.use(jsonBody);
  app.post('/echo', (_req, res) => sendJson(res, 200, {}));
  app.use((err: unknown, _req: express.Request, _res: express.Response, next: express.NextFunction) => {
    seen.push(err);
    next(err);
  });
  app.use(errorHandler);
  const aborting = await listen(app);
  try {
    const url = new URL(`${aborting.base}/echo`);
    const req = http.request({ host: url.hostname, port: url.port, method: 'POST', path: url.pathname, headers: { 'content-type': 'application/json', 'content-length': 100 } });
    req.on('error', () => {});
    req.write('{"a":');
    await new Promise((r) => setTimeout(r, 50));
    req.destroy();
    const until = Date.now() + 2_000;
    while (seen.length === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ status: 400, message: 'request aborted' });
    expect(isConnectionError(seen[0])).toBe(false);
  } finally {
    aborting.close();
  }
});
