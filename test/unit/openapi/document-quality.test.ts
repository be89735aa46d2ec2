/**
 * The API document as tools get it: the committed copy (clients/typescript/generated/) is exactly what the
 * code generates, Redocly's recommended rules report nothing (redocly.yaml; the accepted exceptions, with
 * reasons, in .redocly.lint-ignore.yaml), and what the issue asked of it holds: every operation described,
 * tagged and exemplified, every int64 marked, the error codes enumerated, the 13 webhook events, servers.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { lint, lintFromString, loadConfig } from '@redocly/openapi-core';
import { promisify } from 'node:util';
import { renderDocument } from '../../../clients/typescript/scripts/render';
import { buildDocument } from '../../../services/api/openapi/document';
import type { OpenApiDocument } from '../../../services/api/openapi/operation';
import { errorCatalog } from '../../../services/domain/errors';
import { webhookEventTypes } from '../../../services/webhooks/event-types';
import { sampleEventData } from '../../../services/webhooks/samples';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

const root = path.resolve(__dirname, '../../..');
const committedPath = path.join(root, 'clients/typescript/generated/openapi.json');
const committed = readFileSync(committedPath, 'utf8');
const doc = JSON.parse(committed) as Required<OpenApiDocument>;
const operations = Object.entries(doc.paths).flatMap(([p, item]) => Object.entries(item).map(([method, op]) => ({ where: `${method.toUpperCase()} ${p}`, op: op as any })));

test('the committed document and types are what the code generates (after an API change: npm run generate, and commit both)', async () => {
  expect(committed === renderDocument()).toBe(true);
  // The types too, by the generator itself (openapi-typescript is an ES module jest does not load).
  const tsx = path.join(root, 'node_modules/tsx/dist/cli.mjs');
  const check = await promisify(execFile)(process.execPath, [tsx, 'clients/typescript/scripts/generate.ts', '--check'], { cwd: root, encoding: 'utf8' })
    .then(() => 'current', (e: { stderr: string }) => e.stderr);
  expect(check).toBe('current');
}, 60_000);

test("Redocly's recommended rules: no error and no warning on the committed document", async () => {
  const config = await loadConfig({ configPath: path.join(root, 'redocly.yaml') });
  const problems = await lint({ ref: committedPath, config });
  const reported = problems.filter((p) => !p.ignored).map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`);
  expect(reported).toEqual([]);
  // The ignore file accepts exactly the two probes without a 4XX answer (no blanket exceptions).
  expect(problems.filter((p) => p.ignored).map((p) => p.location[0]?.pointer).sort()).toEqual(['#/paths/~1healthz/get/responses', '#/paths/~1readyz/get/responses']);
});

test('the lint would catch an example that contradicts its schema', async () => {
  const config = await loadConfig({ configPath: path.join(root, 'redocly.yaml') });
  const broken = JSON.parse(committed);
  broken.paths['/v1/orders'].post.requestBody.content['application/json'].example = { resource: 'gas', receiver: 'T' };
  const problems = await lintFromString({ source: JSON.stringify(broken), absoluteRef: path.join(root, 'broken-openapi.json'), config });
  expect(problems.some((p) => p.ruleId === 'no-invalid-media-type-examples' && p.severity === 'error')).toBe(true);
});

test('every operation has a description, defined tags, and an example for its JSON body and success answers', () => {
  const tagNames = doc.tags.map((t: { name: string }) => t.name);
  const missing: string[] = [];
  for (const { where, op } of operations) {
    if (!op.description || op.description.length < op.summary.length) missing.push(`${where}: description`);
    if (!op.tags?.length || op.tags.some((t: string) => !tagNames.includes(t))) missing.push(`${where}: tags`);
    const body = op.requestBody?.content?.['application/json'];
    if (body && body.example === undefined) missing.push(`${where}: request example`);
    for (const [status, r] of Object.entries(op.responses) as Array<[string, any]>) {
      const media = r.content?.['application/json'];
      // This document itself (GET /v1/openapi.json) is the one answer without an example.
      if (media && media.example === undefined && where !== 'GET /v1/openapi.json') missing.push(`${where} ${status}: example`);
    }
  }
  expect(missing).toEqual([]);
  // Every declared tag is used.
  expect(tagNames.filter((t: string) => !operations.some(({ op }) => op.tags?.includes(t)))).toEqual([]);
});

/** Every property of every schema reachable in the document, with the name it has. */
function properties(node: unknown, out: Array<{ name: string; schema: any }> = []): Array<{ name: string; schema: any }> {
  if (Array.isArray(node)) node.forEach((n) => properties(n, out));
  else if (node && typeof node === 'object') {
    const props = (node as any).properties;
    if (props && typeof props === 'object') for (const [name, schema] of Object.entries(props)) out.push({ name, schema });
    Object.values(node).forEach((v) => properties(v, out));
  }
  return out;
}
const resolved = (s: any): any => (s?.$ref ? resolved(doc.components.schemas[s.$ref.split('/').pop()]) : s?.oneOf ? resolved(s.oneOf.find((o: any) => o.type !== 'null')) : s);

test('every int64 amount (*_sun) is `type: integer, format: int64`, so generated clients do not type it as a plain number', () => {
  const sunFields = properties(doc).filter(({ name }) => name.endsWith('_sun') && name !== 'price_sun');
  expect(sunFields.length).toBeGreaterThan(40);
  const untyped = sunFields.filter(({ schema }) => { const r = resolved(schema); return r.type !== 'integer' || r.format !== 'int64'; });
  expect(untyped.map((f) => f.name)).toEqual([]);
  const types = readFileSync(path.join(root, 'clients/typescript/generated/schema.ts'), 'utf8');
  expect(types).toMatch(/Sun: number \| bigint;/);
});

test('error codes and slugs are enumerated, per answer status, and narrowed per operation (operation-errors.test.ts holds which)', () => {
  const schemas = doc.components.schemas as Record<string, any>;
  expect(schemas.ErrorCode.enum).toEqual(Object.values(errorCatalog).map((e) => e.code));
  expect(schemas.ErrorSlug.enum).toEqual(Object.keys(errorCatalog));
  expect(schemas.Error402.allOf[1].properties.error.properties.code.enum).toEqual([4001]);
  expect(schemas.Error429.allOf[1].properties.error.properties.slug.enum).toEqual(['rate_limited']);
  const create = doc.paths['/v1/orders'].post as any;
  const conflict = create.responses['409'].content['application/json'];
  expect(conflict.schema).toEqual({ $ref: '#/components/schemas/Error409_3004_3006_3010_3012_3047' });
  expect(schemas.Error409_3004_3006_3010_3012_3047.allOf[0]).toEqual({ $ref: '#/components/schemas/Error409' });
  expect(conflict.example.error.code).toBe(3004);
  // A status whose every code the operation answers refers to the status's envelope itself.
  expect(create.responses['402'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error402' });
});

test('Order.source is an enum and the order detail requires typed fills and delegations', () => {
  const schemas = doc.components.schemas as Record<string, any>;
  expect(schemas.Order.properties.source.enum).toEqual(['api', 'dashboard', 'transfer', 'bot', 'subscription', 'batch', 'proxy']);
  const detail = schemas.OrderDetail.allOf[1];
  expect(detail.required).toEqual(['fills', 'delegations']);
  expect(detail.properties.fills.items.required).toEqual(['class', 'amount', 'price_sun']);
  expect(detail.properties.delegations.items.required).toEqual(['amount', 'tx_id']);
});

test('webhooks: one entry per event type of the catalogue, each with its payload schema and signed headers', () => {
  expect(Object.keys(doc.webhooks)).toEqual([...webhookEventTypes]);
  for (const type of webhookEventTypes) {
    const op = (doc.webhooks as Record<string, { post: any }>)[type].post;
    const schema = resolved(op.requestBody.content['application/json'].schema);
    expect([schema.properties.event.const, Object.keys(schema.properties.data.properties).length > 0]).toEqual([type, true]);
    expect(op.parameters.map((p: { name: string }) => p.name)).toEqual(expect.arrayContaining(['X-API-TIMESTAMP', 'X-API-SIGN', 'X-Event-Id']));
  }
});

test("each webhook schema accepts the payload the service sends for that event (the test delivery's data)", () => {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ $id: 'doc', components: doc.components });
  const refused: string[] = [];
  for (const type of webhookEventTypes) {
    const schema = (doc.webhooks as Record<string, { post: any }>)[type].post.requestBody.content['application/json'].schema;
    const validate = ajv.compile({ $ref: `doc${schema.$ref}` });
    const envelope = { event: type, event_id: 'evt_1', event_version: 1, created_at: '2026-12-01T10:00:00Z', account_id: 'acc_1', network: 'nile', test: true, data: sampleEventData(type, Date.parse('2026-12-01T10:00:00Z')) };
    if (!validate(envelope)) refused.push(`${type}: ${ajv.errorsText(validate.errors)}`);
    // A wrong type for one field is refused (the schema is not a blank check).
    if (validate({ ...envelope, data: { ...envelope.data, ...Object.fromEntries([[Object.keys(envelope.data)[0], { not: 'this' }]]) } })) refused.push(`${type}: accepts anything`);
  }
  expect(refused).toEqual([]);
});

test('servers: this server first, then mainnet and Nile from configuration (a placeholder variable when unset)', () => {
  expect(doc.servers.map((s) => s.url)).toEqual(['/', '{mainnet_origin}', '{nile_origin}']);
  const configured = buildDocument({ mainnet: 'https://api.energy.example/', nile: 'https://nile.energy.example' });
  expect(configured.servers.map((s) => s.url)).toEqual(['/', 'https://api.energy.example', 'https://nile.energy.example']);
});
