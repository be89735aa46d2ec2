/**
 * Property-based fuzz of every route of the OpenAPI document (issue 12, item 2), on the real stack.
 * Each generated request carries at least one value the service must refuse (U+0000 or a lone
 * surrogate in a string, a leap-second or out-of-range date-time, a crafted cursor, an int64 overflow,
 * an undecodable path), placed in a path parameter, a query parameter or the body, next to plausible
 * values elsewhere, and is sent with credentials the route accepts, so it reaches validation and the
 * handler. Properties: never a 5xx, always a 4xx error envelope whose code the operation declares under that
 * status in the served document (issue 33: codes per operation), and nothing changed (every table of the
 * database and the end of every topic are as before; only the bookkeeping of a caller's use moves:
 * `api_keys.last_used_at`, `sessions.expires_at`, the spent signatures in `used_signatures`).
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import {
  call, sessionHeaders, signedHeaders, signIn, signUp, startIdentityStack, type Customer, type IdentityStack, type Reply, type Session,
} from '../../support/identity';

const RUNS = Number(process.env.FUZZ_RUNS ?? 12);
/** Fixed seed to replay a reported failure; unset, each run explores new inputs. */
if (process.env.FUZZ_SEED) fc.configureGlobal({ seed: Number(process.env.FUZZ_SEED) });
/** Operations outside the API proper (liveness, metrics) take no input. */
const SKIP = new Set(['healthz', 'readyz', 'metrics']);

type Schema = Record<string, any>;
interface Param { name: string; in: 'path' | 'query' | 'header'; schema: Schema }
interface Op {
  method: string;
  path: string;
  operationId: string;
  security?: Array<Record<string, string[]>>;
  parameters?: Param[];
  requestBody?: { content: { 'application/json': { schema: Schema } } };
  responses: Record<string, { content?: { 'application/json'?: { schema: Schema } } }>;
}

let stack: IdentityStack;
let doc: { paths: Record<string, Record<string, Omit<Op, 'method' | 'path'>>>; components: { schemas: Record<string, Schema> } };
let ops: Op[];
let customer: Customer;
let session: Session;
/** Real ids for path parameters, so a poison in the query or body meets a handler that finds its object. */
const knownIds: Record<string, string> = {};

const b64 = (s: string) => Buffer.from(s).toString('base64url');
/** Cursors the lists decode: year -10000, year 10000, a sequence past int64, junk. */
const craftedCursors = [
  b64('-010000-01-01T00:00:00.000Z|jrn_00'), b64('+010000-01-01T00:00:00.000Z|jrn_00'),
  b64('2025-01-01T00:00:00.000Z|99999999999999999999|dlv_00'), b64('2025-01-01T00:00:00.000Z|9223372036854775808|dlv_00'),
  b64('-377736739200000:ord_000000000000000000000000'), b64('999999999999999:ord_000000000000000000000000'), b64('x\u0000|jrn_1'),
];

/** Text PostgreSQL cannot store, inside otherwise ordinary text. */
const poisonText = fc
  .tuple(fc.string({ maxLength: 12 }), fc.constantFrom('\u0000', '\uD800', '\uDBFF', '\uDC00', '\uDFFF', 'x\u0000y'), fc.string({ maxLength: 12 }))
  .map(([a, p, b]) => a + p + b);
const poisonDateTime = fc.constantFrom('2024-12-31T23:59:60Z', '-010000-01-01T00:00:00Z', '+010000-01-01T00:00:00Z', '0000-01-01T00:00:00Z', '2024-02-30T00:00:00Z');
/** In a URL a lone surrogate becomes U+FFFD on the way (WHATWG encoding), so there the poison is U+0000. */
const poisonUrlText = fc.tuple(fc.string({ maxLength: 12 }), fc.string({ maxLength: 12 })).map(([a, b]) => `${a}\u0000${b}`);
const poisonNumber = fc.constantFrom('9223372036854775808', '99999999999999999999999', '-9223372036854775809', '1e400');

function resolveRef(schema: Schema): Schema {
  let s = schema;
  while (s && typeof s.$ref === 'string') s = doc.components.schemas[s.$ref.split('/').pop()!];
  return s ?? {};
}

/** A value that fits the schema well enough to get past it (so the poison elsewhere is what decides). */
function plausible(schemaIn: Schema): fc.Arbitrary<unknown> {
  const schema = resolveRef(schemaIn);
  if (schema.oneOf) return fc.oneof(...schema.oneOf.map((s: Schema) => plausible(s)));
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (schema.pattern?.startsWith('^T')) return fc.constantFrom('TJRabPrwbZy45sbavfcjinPJC18kjpRTv8', 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7');
  if (schema.format === 'date-time') return fc.constantFrom('2025-01-01T00:00:00Z', '2030-06-01T12:00:00.5+02:00');
  if (schema.format === 'uri' || /url/i.test(schema.description ?? '')) return fc.constantFrom('https://127.0.0.1:9/hook', 'https://example.com/x');
  switch (type) {
    case 'integer': return fc.integer({ min: schema.minimum ?? 0, max: Math.min(schema.maximum ?? 1_000_000, 1_000_000) });
    case 'boolean': return fc.boolean();
    case 'null': return fc.constant(null);
    case 'array': return fc.array(plausible(schema.items ?? {}), { maxLength: 2 });
    case 'object': return fc.constant({});
    default: return fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 16, 16) });
  }
}

/** A value the service must refuse, of a kind that fits where it goes. */
function poison(schemaIn: Schema, where: 'path' | 'query' | 'body', name: string): fc.Arbitrary<unknown> {
  const schema = resolveRef(schemaIn);
  const kinds: Array<fc.Arbitrary<unknown>> = [
    where === 'path' ? fc.constantFrom('\u0000', 'ord_\u0000', 'x\u0000y', '%ED%A0%80') : where === 'query' ? poisonUrlText : poisonText,
  ];
  if (schema.format === 'date-time') kinds.push(poisonDateTime);
  if (name === 'cursor') kinds.push(fc.constantFrom(...craftedCursors));
  if (schema.type === 'integer' || name.endsWith('_sun')) kinds.push(poisonNumber.map((n) => (where === 'body' ? { raw: n } : n)));
  if (where === 'body') kinds.push(fc.array(poisonText, { minLength: 1, maxLength: 2 }), fc.dictionary(poisonText, fc.string(), { minKeys: 1, maxKeys: 1 }));
  return fc.oneof(...kinds);
}

/** The codes the operation declares under this status in the served document (none: the status is not declared). */
function declaredCodes(op: Op, status: number): number[] {
  const schema = op.responses[String(status)]?.content?.['application/json']?.schema;
  return schema ? resolveRef(schema).allOf[1].properties.error.properties.code.enum : [];
}

interface Built { path: string; raw?: string }

/** Writes a body whose raw numbers (int64 overflows) stay as written. */
function bodyText(body: Record<string, unknown>): string {
  const marks: string[] = [];
  const text = JSON.stringify(body, (_k, v) => {
    if (v && typeof v === 'object' && 'raw' in v && Object.keys(v).length === 1) {
      marks.push(String((v as { raw: string }).raw));
      return `@@RAW${marks.length - 1}@@`;
    }
    return v;
  });
  return text.replace(/"@@RAW(\d+)@@"/g, (_m, i) => marks[Number(i)]);
}

function encodePathValue(value: string): string {
  // '%ED%A0%80' is sent as is: an undecodable sequence (a lone surrogate's WTF-8 bytes).
  return value === '%ED%A0%80' ? value : encodeURIComponent(value);
}

/** One request of the operation with exactly one poisoned place (chosen by the generator) and plausible values elsewhere. */
function requests(op: Op): fc.Arbitrary<Built> {
  const params = (op.parameters ?? []).filter((p) => p.in !== 'header');
  const bodySchema = op.requestBody ? resolveRef(op.requestBody.content['application/json'].schema) : undefined;
  const bodyProps: Record<string, Schema> = bodySchema?.properties ?? {};
  const places: Array<{ where: 'path' | 'query' | 'body'; name: string; schema: Schema }> = [
    ...params.map((p) => ({ where: p.in as 'path' | 'query', name: p.name, schema: p.schema })),
    ...Object.entries(bodyProps).map(([name, schema]) => ({ where: 'body' as const, name, schema })),
    // An undeclared query parameter or body field with poison in it: refused whatever else holds.
    { where: 'query' as const, name: 'unexpected', schema: { type: 'string' } },
    ...(bodySchema ? [{ where: 'body' as const, name: 'unexpected', schema: { type: 'string' } }] : []),
  ];
  return fc.nat({ max: places.length - 1 }).chain((i) => {
    const target = places[i];
    const pathValues = params.filter((p) => p.in === 'path').map((p) => {
      if (target.where === 'path' && target.name === p.name) return poison(p.schema, 'path', p.name);
      return knownIds[p.name] ? fc.constant(knownIds[p.name]) : plausible(p.schema);
    });
    const queryValues = params.filter((p) => p.in === 'query').map((p) =>
      target.where === 'query' && target.name === p.name ? poison(p.schema, 'query', p.name) : fc.option(plausible(p.schema), { nil: undefined }));
    const bodyValues = Object.entries(bodyProps).map(([name, s]) =>
      target.where === 'body' && target.name === name ? poison(s, 'body', name) : fc.option(plausible(s), { nil: undefined }));
    const extra = target.name === 'unexpected' ? poison({ type: 'string' }, target.where, 'unexpected') : fc.constant(undefined);
    return fc.tuple(fc.tuple(...pathValues), fc.tuple(...queryValues), fc.tuple(...bodyValues), extra).map(([pv, qv, bv, ex]) => {
      let path = op.path;
      params.filter((p) => p.in === 'path').forEach((p, k) => {
        path = path.replace(`{${p.name}}`, encodePathValue(String(pv[k])));
      });
      const query = new URLSearchParams();
      params.filter((p) => p.in === 'query').forEach((p, k) => {
        const v = qv[k];
        if (v === undefined) return;
        for (const item of Array.isArray(v) ? v : [v]) query.append(p.name, String(item));
      });
      if (target.where === 'query' && target.name === 'unexpected') query.append('unexpected', String(ex));
      const qs = query.toString();
      let raw: string | undefined;
      if (bodySchema) {
        const body: Record<string, unknown> = {};
        Object.keys(bodyProps).forEach((name, k) => {
          if (bv[k] !== undefined) body[name] = bv[k];
        });
        if (target.where === 'body' && target.name === 'unexpected') body.unexpected = ex;
        raw = bodyText(body);
      }
      return { path: qs ? `${path}?${qs}` : path, raw };
    });
  });
}

/** Credentials the operation accepts (the first scheme of its security list). */
function credentials(op: Op, built: Built): Record<string, string> {
  const scheme = Object.keys(op.security?.[0] ?? {})[0];
  if (scheme === 'apiKey') return signedHeaders(customer.key, op.method, built.path, built.raw ?? '');
  if (scheme === 'session') return sessionHeaders(session);
  if (scheme === 'bootstrapToken') return { authorization: `Bearer ${customer.token}` };
  return {};
}

/** Moves by use, not by a change a caller asked for. */
const bookkeeping: Record<string, string[]> = { api_keys: ['last_used_at'], sessions: ['expires_at'] };
/**
 * Wholly bookkeeping: each signature a request spent (Redis's single-use record, written behind here), and
 * the roles' progress that /readyz reads, written every few seconds whatever the requests.
 */
const bookkeepingTables = new Set(['used_signatures', 'role_heartbeats']);

async function digest(): Promise<string> {
  const { rt } = stack;
  const tables = (await rt.pool.query("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename")).rows.map((r) => r.tablename as string);
  const hash = createHash('sha256');
  for (const table of tables.filter((t) => !bookkeepingTables.has(t))) {
    const { rows } = await rt.pool.query(`SELECT * FROM "${table}"`);
    const lines = rows.map((r) => {
      for (const col of bookkeeping[table] ?? []) delete r[col];
      return JSON.stringify(r, (_k, v) => (typeof v === 'bigint' ? v.toString() : v));
    }).sort();
    hash.update(`${table}:${lines.join('\n')}\n`);
  }
  for (const { topic } of Object.values(rt.codec.topics)) {
    const ends = await rt.log.endOffsets(topic);
    hash.update(`${topic}:${[...ends.entries()].sort((a, b) => a[0] - b[0]).map(([p, o]) => `${p}=${o}`).join(',')}\n`);
  }
  return hash.digest('hex');
}

beforeAll(async () => {
  stack = await startIdentityStack('fuzz', { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
  customer = await signUp(stack.base);
  session = await signIn(stack.base, customer.wallet);
  doc = (await call(stack.base, 'GET', '/v1/openapi.json')).body;
  const hook = await call(stack.base, 'POST', '/v1/webhooks', { body: { url: 'https://127.0.0.1:9/hook' }, headers: sessionHeaders(session) });
  expect(hook.status).toBe(201);
  Object.assign(knownIds, { webhookId: hook.body.id, keyId: customer.key.id, orderId: 'cid:fuzz-order' });
  ops = Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({ ...op, method: method.toUpperCase(), path })));
});

afterAll(async () => {
  await stack?.stop();
});

test('the document lists the API routes the fuzz runs', () => {
  const ids = ops.map((o) => o.operationId).filter((id) => !SKIP.has(id));
  expect(ids.length).toBeGreaterThanOrEqual(30);
  expect(ids).toEqual(expect.arrayContaining(['createOrder', 'listOrders', 'verifyChallenge', 'createSession', 'revokeApiKey', 'listWebhookDeliveries', 'listLedger']));
});

/** The requests of the probe (issue 12) that answered 500: each now 400 2000 naming the field. */
test('the probe\'s 500s answer 400 2000 with the field', async () => {
  const nul = 'x\u0000y';
  const proof = { address: customer.wallet.address, nonce: nul, signature: `0x${'a'.repeat(130)}` };
  const year = (y: string) => b64(`${y}-01-01T00:00:00.000Z|jrn_00`);
  const cases: Array<[string, string, unknown, 'none' | 'key' | 'session' | 'bootstrap', string]> = [
    ['POST', '/v1/accounts/challenge/verify', proof, 'none', 'nonce'],
    ['POST', '/v1/session', proof, 'none', 'nonce'],
    ['GET', '/v1/orders/ord_%00', undefined, 'key', 'orderId'],
    ['GET', '/v1/webhooks/%00', undefined, 'key', 'webhookId'],
    ['DELETE', '/v1/api-keys/%00', undefined, 'session', 'keyId'],
    ['GET', '/v1/orders?receiver=%00', undefined, 'key', 'receiver'],
    ['GET', '/v1/orders?created_after=2024-12-31T23:59:60Z', undefined, 'key', 'created_after'],
    ['GET', `/v1/ledger?cursor=${year('-010000')}`, undefined, 'session', 'cursor'],
    ['GET', `/v1/orders?cursor=${b64('999999999999999:ord_000000000000000000000000')}`, undefined, 'key', 'cursor'],
    ['GET', `/v1/webhooks/${knownIds.webhookId}/deliveries?cursor=${b64('2025-01-01T00:00:00.000Z|9223372036854775808|dlv_00')}`, undefined, 'key', 'cursor'],
    ['POST', '/v1/api-keys', { name: nul }, 'bootstrap', 'name'],
    ['POST', '/v1/orders', { quote_id: nul, resource: 'energy', receiver: customer.wallet.address }, 'key', 'quote_id'],
    ['POST', '/v1/orders', { memo: nul, resource: 'energy', amount: 65000, tier: '1h', receiver: customer.wallet.address }, 'key', 'memo'],
    ['POST', '/v1/orders', { client_order_id: '\uD800', resource: 'energy', amount: 65000, tier: '1h', receiver: customer.wallet.address }, 'key', 'client_order_id'],
    ['POST', '/v1/webhooks', { url: `https://example.com/${nul}` }, 'key', 'url'],
  ];
  const before = await digest();
  for (const [method, path, body, cred, field] of cases) {
    const raw = body === undefined ? undefined : JSON.stringify(body);
    const headers = cred === 'key' ? signedHeaders(customer.key, method, path, raw ?? '')
      : cred === 'session' ? sessionHeaders(session) : cred === 'bootstrap' ? { authorization: `Bearer ${customer.token}` } : {};
    const reply = await call(stack.base, method, path, { raw, headers });
    expect([method, path, reply.status, reply.body?.error?.code, reply.body?.error?.details]).toEqual([method, path, 400, 2000, { field }]);
  }
  expect(await digest()).toBe(before);
});

test('hostile credentials headers answer 401, never 500', async () => {
  const before = await digest();
  const headerSets: Array<Record<string, string>> = [
    { cookie: 'session=%E0%A4%A' }, { cookie: 'session=%00' }, { cookie: 'session=' }, { authorization: 'Bearer abt_%00' },
    { 'x-api-key': 'key_%00', 'x-api-timestamp': '1', 'x-api-sign': 'x' }, { 'x-api-key': `key_${'0'.repeat(24)}`, 'x-api-timestamp': '99999999999999999999', 'x-api-sign': '=' },
  ];
  for (const headers of headerSets) {
    for (const [method, path] of [['GET', '/v1/session'], ['GET', '/v1/account'], ['POST', '/v1/orders']]) {
      const reply = await call(stack.base, method, path, { headers, raw: method === 'POST' ? '{}' : undefined });
      expect([method, path, headers, reply.status]).toEqual([method, path, headers, expect.any(Number)]);
      expect(reply.status).toBeGreaterThanOrEqual(400);
      expect(reply.status).toBeLessThan(500);
      const op = ops.find((o) => o.method === method && o.path === path)!;
      expect([op.operationId, reply.status, declaredCodes(op, reply.status)]).toEqual([op.operationId, reply.status, expect.arrayContaining([reply.body.error.code])]);
    }
  }
  expect(await digest()).toBe(before);
});

test('every route, hostile input: no 5xx, a 4xx envelope, nothing changed', async () => {
  const before = await digest();
  const failures: string[] = [];
  const answered = new Set<string>();
  let sent = 0;
  for (const op of ops.filter((o) => !SKIP.has(o.operationId))) {
    await fc.assert(
      fc.asyncProperty(requests(op), async (built) => {
        sent++;
        let reply: Reply;
        try {
          reply = await call(stack.base, op.method, built.path, { raw: built.raw, headers: credentials(op, built) });
        } catch (err) {
          failures.push(`${op.method} ${built.path}: no answer (${(err as Error).message})`);
          return false;
        }
        const ok = reply.status >= 400 && reply.status < 500 && typeof reply.body?.error?.code === 'number';
        if (!ok) failures.push(`${op.method} ${built.path} ${built.raw ?? ''} -> ${reply.status} ${reply.text.slice(0, 200)}`);
        const declared = ok && declaredCodes(op, reply.status).includes(reply.body.error.code);
        if (ok && !declared) failures.push(`${op.operationId} answered ${reply.status} ${reply.body.error.code}, not among its declared codes ${declaredCodes(op, reply.status)}`);
        if (declared) answered.add(`${op.operationId} ${reply.body.error.code}`);
        return ok && declared;
      }),
      { numRuns: RUNS, endOnFailure: true },
    ).catch((err: Error) => {
      // fast-check's report names the seed and path: FUZZ_SEED=<seed> replays the same inputs.
      failures.push(`${op.operationId}: ${err.message.split('\n').slice(0, 2).join(' ')}`);
    });
  }
  expect(failures).toEqual([]);
  expect(sent).toBeGreaterThanOrEqual(30 * Math.min(RUNS, 5));
  // The check of declared codes saw answers (every poisoned request of every operation is one).
  expect(answered.size).toBeGreaterThanOrEqual(ops.length - SKIP.size);
  expect(await digest()).toBe(before);
});
