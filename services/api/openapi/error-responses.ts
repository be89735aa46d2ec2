/**
 * Each operation's error answers, made from its declared codes (operation-errors.ts): one response per HTTP
 * status those codes use, its schema the status's envelope (`Error409`...) narrowed to exactly the
 * operation's codes and slugs, with an example of the first of them.
 */
import { errorCatalog, type ErrorSlug } from '../../domain/errors';
import { errorStatuses, narrowing, ofStatus } from './error-schemas';
import type { OpenApiDocument, Operation } from './operation';
import { declaredErrors } from './operation-errors';

const MEANINGS: Record<number, string> = {
  400: 'The request is malformed; nothing changed (`details.field` names the field).',
  401: 'Missing, expired or wrong credentials or signature.',
  402: 'The balance cannot cover this; nothing was charged.',
  403: 'The credentials lack the scope or role this needs.',
  404: 'No such resource for this account.',
  409: 'The current state does not allow this.',
  422: 'Well-formed but refused by a business rule.',
  429: 'A budget is spent (1020); wait `Retry-After` seconds.',
  500: 'Internal error; nothing is exposed. Safe to retry with the same idempotency key.',
  503: 'A dependency is away or the service is at capacity; nothing was stored or charged. Retry with the same idempotency key.',
};

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/**
 * The error responses of an operation answering `slugs`, by status. A status whose codes are a part of the
 * status's envelope refers to a schema named by those codes (`Error409_3002_3010`), added to `schemas` once
 * and shared by every operation answering the same codes.
 */
export function errorResponsesOf(slugs: readonly ErrorSlug[], schemas: Record<string, unknown>): Operation['responses'] {
  const byStatus = new Map<number, ErrorSlug[]>();
  for (const slug of slugs) {
    const status = errorCatalog[slug].http;
    if (!errorStatuses.includes(status)) throw new Error(`${slug} (${status}) is never an answer's code: it cannot be declared`);
    byStatus.set(status, [...(byStatus.get(status) ?? []), slug]);
  }
  const out: Operation['responses'] = {};
  for (const status of [...byStatus.keys()].sort((a, b) => a - b)) {
    // In catalogue order, as the status's envelope lists them.
    const own = ofStatus(status).filter((s) => byStatus.get(status)!.includes(s));
    const whole = own.length === ofStatus(status).length;
    const codes = own.map((s) => errorCatalog[s].code);
    const name = whole ? `Error${status}` : `Error${status}_${codes.join('_')}`;
    schemas[name] ??= {
      description: `The error envelope of a ${status} answer with only these codes.`,
      allOf: [ref(`Error${status}`), narrowing(codes, own)],
    };
    const first = own[0];
    const example = { error: { code: errorCatalog[first].code, slug: first, message: errorCatalog[first].message, details: null }, request_id: 'req_01J9Z3Q4V8X2' };
    const listed = own.map((s) => `${errorCatalog[s].code} \`${s}\``).join(', ');
    out[String(status)] = { description: `${MEANINGS[status]} Codes: ${listed}.`, content: { 'application/json': { schema: ref(name), example } } };
  }
  return out;
}

/** Adds every operation's error responses (after its success answers), in place; an operation missing from the table is a build error. */
export function declareErrorResponses(doc: OpenApiDocument): OpenApiDocument {
  for (const methods of Object.values(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const slugs = declaredErrors(op.operationId, op.security, method);
      if (!slugs) throw new Error(`operation ${op.operationId} has no entry in services/api/openapi/operation-errors.ts`);
      Object.assign(op.responses, errorResponsesOf(slugs, doc.components.schemas));
    }
  }
  return doc;
}
