/**
 * The per-operation error codes (services/api/openapi/operation-errors.ts): the table covers exactly the
 * document's operations, the committed document answers exactly the table's codes per operation, and every
 * code a route's code can reach (test/support/reachable-slugs.ts: the route, what it calls, the processor's
 * handlers of its commands) is declared for that operation.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { errorCatalog, type ErrorSlug } from '../../../services/domain/errors';
import { errorStatuses } from '../../../services/api/openapi/error-schemas';
import { declaredErrors, operationErrors, PROBE_ERRORS } from '../../../services/api/openapi/operation-errors';
import { reachableByOperation, type Reach } from '../../support/reachable-slugs';

const root = path.resolve(__dirname, '../../..');
const doc = JSON.parse(readFileSync(path.join(root, 'clients/typescript/generated/openapi.json'), 'utf8'));
const operations = Object.values(doc.paths as Record<string, Record<string, any>>).flatMap((item) => Object.entries(item).map(([method, op]) => ({ ...op, method })));
const byId = new Map(operations.map((op) => [op.operationId as string, op]));
const schemaOf = (s: any): any => (s?.$ref ? schemaOf(doc.components.schemas[s.$ref.split('/').pop()]) : s);

const reach = new Map<string, Reach>();
for (const file of readdirSync(path.join(root, 'services/api/routes'))) {
  for (const [id, r] of reachableByOperation(`services/api/routes/${file}`)) reach.set(id, r);
}

/**
 * Slugs the analysis reaches that the operation cannot answer, each with why (the analysis counts a function
 * whole, and a slug's name written as a value that is not an error).
 */
const NOT_ANSWERED: Partial<Record<string, Partial<Record<ErrorSlug, string>>>> = {
  createBatch: { insufficient_funds: "a batch item's status (domain/batches/rules.ts), not a refusal of the batch" },
  listBatches: { insufficient_funds: "a batch item's status in the view" },
  getBatch: { insufficient_funds: "a batch item's status in the view" },
  testWebhook: { insufficient_funds: "the sample order.failed payload's failure (webhooks/samples.ts)" },
  ...Object.fromEntries(['createSubscription', 'updateSubscription'].map((id) => [id, {
    quote_expired: "a plan's day is placed without a quote (plan-handlers.ts placePlanDay)",
    quote_mismatch: "a plan's day is placed without a quote or a transfer",
    nothing_to_rent: "a plan's day is not sized to a transfer",
  }])),
};

test('the table names every operation of the document, and nothing else', () => {
  const tabled = [...Object.keys(operationErrors), ...Object.keys(PROBE_ERRORS)].sort();
  expect(tabled).toEqual([...byId.keys()].sort());
  // Every code it names is in the catalogue and is some answer's code (3046, 3048, 5002, 5005 never are).
  const named = new Set(Object.values(operationErrors).flat());
  expect([...named].filter((s) => !(s in errorCatalog) || !errorStatuses.includes(errorCatalog[s].http))).toEqual([]);
});

test("each operation's error answers carry exactly its declared codes, under their own status, as enums", () => {
  const wrong: string[] = [];
  for (const op of operations) {
    const declared = declaredErrors(op.operationId, op.security, op.method)!;
    const answered: number[] = [];
    for (const [status, response] of Object.entries(op.responses as Record<string, any>)) {
      if (status.startsWith('2') || op.operationId === 'readyz') continue;
      const schema = schemaOf(response.content['application/json'].schema);
      const error = schema.allOf[1].properties.error.properties;
      const codes: number[] = error.code.enum;
      answered.push(...codes);
      // Slugs one to one with the codes, each of this status; the example is one of them.
      expect(error.slug.enum.map((s: ErrorSlug) => errorCatalog[s].code)).toEqual(codes);
      if (codes.some((c) => Object.values(errorCatalog).find((e) => e.code === c)!.http !== Number(status))) wrong.push(`${op.operationId} ${status}: a code of another status`);
      expect(codes).toContain(response.content['application/json'].example.error.code);
    }
    const want = declared.map((s) => errorCatalog[s].code).sort();
    if (JSON.stringify(answered.sort()) !== JSON.stringify(want)) wrong.push(`${op.operationId}: answers ${answered} but declares ${want}`);
  }
  expect(wrong).toEqual([]);
  // No longer every 409 code on every 409: the order routes differ.
  const codes409 = (id: string) => schemaOf(byId.get(id).responses['409'].content['application/json'].schema).allOf[1].properties.error.properties.code.enum;
  expect(codes409('createOrder')).toEqual([3004, 3006, 3010, 3012, 3047]);
  expect(codes409('reclaimOrder')).toEqual([3007, 3008, 3010, 3045]);
  expect(byId.get('getOrder').responses['409']).toBeUndefined();
});

test('every code a route can reach is declared for its operation', () => {
  // The routes the analysis reads are the document's operations (openapi and the probes are app.ts's and health.ts's).
  expect([...reach.keys(), 'openapi', ...Object.keys(PROBE_ERRORS)].sort()).toEqual([...byId.keys()].sort());
  const undeclared: string[] = [];
  for (const [id, r] of reach) {
    const op = byId.get(id);
    const declared = new Set(declaredErrors(id, op.security, op.method));
    for (const slug of r.slugs) {
      // An estimate item's error or an order's failure: never an answer's code.
      if (!errorStatuses.includes(errorCatalog[slug].http)) continue;
      if (!declared.has(slug) && !NOT_ANSWERED[id]?.[slug]) undeclared.push(`${id}: ${slug}`);
    }
  }
  expect(undeclared).toEqual([]);
});

test('the analysis follows routes into their helpers and the processor (it would see a code missing)', () => {
  const create = reach.get('createOrder')!;
  expect([...create.commands]).toEqual(['order.create']);
  // quote_mismatch from the route, chain_unavailable from receiver-activation.ts, insufficient_funds from the processor's createOrder.
  expect([...create.slugs]).toEqual(expect.arrayContaining(['quote_mismatch', 'chain_unavailable', 'insufficient_funds', 'tier_unavailable']));
  expect([...reach.get('createSubscription')!.slugs]).toEqual(expect.arrayContaining(['subscription_exists', 'price_above_limit']));
  // Each exception names a slug the analysis does reach (a stale one would hide nothing and is removed).
  const stale = Object.entries(NOT_ANSWERED).flatMap(([id, slugs]) => Object.keys(slugs!).filter((s) => !reach.get(id)?.slugs.has(s as ErrorSlug)).map((s) => `${id}: ${s}`));
  expect(stale).toEqual([]);
});
