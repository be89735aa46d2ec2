/**
 * The error envelope in the document, from the one catalogue (services/domain/errors.ts): every code and
 * slug as enums, and per HTTP status the envelope with only the codes the service answers with that
 * status, so a generated client can switch on them. `errors('409', ...)` in builders.ts refers to these.
 */
import { errorCatalog, type ErrorSlug } from '../../domain/errors';

const slugs = Object.keys(errorCatalog) as ErrorSlug[];

function envelope(codes: number[], slugList: string[], description: string) {
  return {
    type: 'object',
    description,
    required: ['error', 'request_id'],
    properties: {
      error: {
        type: 'object',
        required: ['code', 'slug', 'message', 'details'],
        properties: {
          code: { type: 'integer', enum: codes },
          slug: { type: 'string', enum: slugList },
          message: { type: 'string', description: 'For people; may change. Program against `code` or `slug`.' },
          details: { type: ['object', 'null'], description: 'Per code, e.g. `field` for 2000.' },
        },
      },
      request_id: { type: ['string', 'null'], description: 'Quote it to support; also the X-Request-Id header.' },
    },
  };
}

const statuses = [...new Set(slugs.map((s) => errorCatalog[s].http))].sort((a, b) => a - b);
const ofStatus = (status: number) => slugs.filter((s) => errorCatalog[s].http === status);

/** The statuses some catalogue code answers with: those have an `Error<status>` schema. */
export const errorStatuses: readonly number[] = statuses;

export function errorExample(status: number) {
  const slug = ofStatus(status)[0];
  return { error: { code: errorCatalog[slug].code, slug, message: errorCatalog[slug].message, details: null }, request_id: 'req_01J9Z3Q4V8X2' };
}

export const errorSchemas = {
  ErrorCode: { type: 'integer', enum: slugs.map((s) => errorCatalog[s].code), description: 'Every error code (contract.md section 1).' },
  ErrorSlug: { type: 'string', enum: slugs, description: 'The slug of each code, one to one.' },
  ErrorEnvelope: envelope(slugs.map((s) => errorCatalog[s].code), slugs, 'The error envelope: every error answer has this shape.'),
  ...Object.fromEntries(statuses.map((status) => [
    `Error${status}`,
    envelope(ofStatus(status).map((s) => errorCatalog[s].code), ofStatus(status), `The error envelope of a ${status} answer.`),
  ])),
};
