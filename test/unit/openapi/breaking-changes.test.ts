/**
 * The breaking-change check (services/api/openapi/breaking-changes.ts): the document the code generates
 * against the last commit's copy, and the check itself against changes that do and do not break a client.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { renderDocument } from '../../../clients/typescript/scripts/render';
import { breakingChanges, type ApiDocument } from '../../../services/api/openapi/breaking-changes';

const root = path.resolve(__dirname, '../../..');
const current = JSON.parse(renderDocument()) as ApiDocument;

/** The last commit's copy; in a tree that is not a git checkout (an exported archive), the copy on disk. */
function lastCommittedCopy(): string {
  const file = 'clients/typescript/generated/openapi.json';
  try {
    return execFileSync('git', ['show', `HEAD:${file}`], { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20, stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return readFileSync(path.join(root, file), 'utf8');
  }
}

test('the document the code generates breaks nothing of the last committed copy (a deliberate break needs a new API version)', () => {
  expect(breakingChanges(JSON.parse(lastCommittedCopy()), current)).toEqual([]);
});

const copy = (): any => JSON.parse(JSON.stringify(current));

test('each kind of break is found, naming its place', () => {
  const removed = copy();
  delete removed.paths['/v1/orders/{orderId}/reclaim'];
  expect(breakingChanges(current, removed)).toEqual(['POST /v1/orders/{orderId}/reclaim: operation removed']);

  const required = copy();
  required.paths['/v1/orders'].post.requestBody.content['application/json'].schema.required.push('memo');
  expect(breakingChanges(current, required)).toEqual(['POST /v1/orders body.memo: request field became required']);

  const narrowed = copy();
  narrowed.components.schemas.OrderResource.enum = ['energy', 'bandwidth'];
  expect(breakingChanges(current, narrowed)).toContain('POST /v1/orders body.resource: request value "activation" no longer accepted');

  const dropped = copy();
  delete dropped.components.schemas.Order.properties.receiver;
  expect(breakingChanges(current, dropped)).toContain('GET /v1/orders/{orderId} 200.receiver: response field removed');

  const retyped = copy();
  retyped.components.schemas.Sun = { type: 'string' };
  expect(breakingChanges(current, retyped)).toContain('GET /v1/balance 200.balance_sun: type number became string');

  const param = copy();
  param.paths['/v1/orders'].get.parameters.push({ name: 'since', in: 'query', required: true, schema: { type: 'string' } });
  expect(breakingChanges(current, param)).toEqual(['GET /v1/orders: parameter query:since added as required']);
});

test('additions a tolerant client ignores are not breaks', () => {
  const added = copy();
  added.paths['/v1/new-thing'] = { get: { operationId: 'newThing', responses: { '200': { description: 'ok' } } } };
  added.components.schemas.Order.properties.new_field = { type: 'string' };
  added.components.schemas.OrderStatus.enum.push('paused');
  added.paths['/v1/orders'].post.requestBody.content['application/json'].schema.properties.note = { type: 'string' };
  expect(breakingChanges(current, added)).toEqual([]);
});

test("narrowing an operation's error codes or dropping an error status is not a break (as in oasdiff's default `breaking` set)", () => {
  // oasdiff rates these INFO, behind --include-checks response-property-enum-value-removed,response-non-success-status-removed:
  // a code the operation never answers is one a client never sees. The per-operation codes of issue 33 did exactly this.
  const narrowed = copy();
  narrowed.components.schemas.Error409_3004_3006_3010_3012_3047.allOf[1].properties.error.properties.code.enum = [3004];
  delete narrowed.paths['/v1/orders'].post.responses['422'];
  expect(breakingChanges(current, narrowed)).toEqual([]);
});
