/**
 * The error envelope in the document, from the one catalogue (services/domain/errors.ts): every code and
 * slug as enums, and per HTTP status the envelope with only the codes the service answers with that
 * status (`Error409`...), which each operation narrows again to its own codes (error-responses.ts).
 */
import { errorCatalog, type ErrorSlug } from '../../domain/errors';

const slugs = Object.keys(errorCatalog) as ErrorSlug[];

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** The part of an envelope schema that narrows its `error.code` and `error.slug` to these codes. */
export function narrowing(codes: number[], slugList: string[]) {
  return {
    type: 'object',
    properties: {
      error: {
        type: 'object',
        // message and details named again (as ErrorEnvelope has them): strict example checks see every property.
        properties: { code: { type: 'integer', enum: codes }, slug: { type: 'string', enum: slugList }, message: { type: 'string' }, details: { type: ['object', 'null'] } },
      },
    },
  };
}

/** The envelope's error codes and slugs narrowed to `codes` (the rest of the shape is ErrorEnvelope's). */
function narrowed(codes: number[], slugList: string[], description: string) {
  return { description, allOf: [ref('ErrorEnvelope'), narrowing(codes, slugList)] };
}

// 502's codes (5002 delegation_failed, 5005 activation_failed) are only ever an order's `failure`, never an answer;
// 200's (3046 transfer_would_fail, 3048 transfer_not_accepted) only an estimate item's `error` or a desk order's failure.
const NOT_ANSWERED = new Set([200, 502]);
const statuses = [...new Set(slugs.map((s) => errorCatalog[s].http))].filter((s) => !NOT_ANSWERED.has(s)).sort((a, b) => a - b);
/** The catalogue's slugs answered with this HTTP status, in catalogue order. */
export const ofStatus = (status: number) => slugs.filter((s) => errorCatalog[s].http === status);

/** The statuses some catalogue code answers with: those have an `Error<status>` schema. */
export const errorStatuses: readonly number[] = statuses;

export const errorSchemas = {
  ErrorCode: { type: 'integer', enum: slugs.map((s) => errorCatalog[s].code), description: 'Every error code (contract.md section 1).' },
  ErrorSlug: { type: 'string', enum: slugs, description: 'The slug of each code, one to one.' },
  ErrorEnvelope: {
    type: 'object',
    description: 'The error envelope: every error answer has this shape.',
    required: ['error', 'request_id'],
    properties: {
      error: {
        type: 'object',
        required: ['code', 'slug', 'message', 'details'],
        properties: {
          code: ref('ErrorCode'),
          slug: ref('ErrorSlug'),
          message: { type: 'string', description: 'For people; may change. Program against `code` or `slug`.' },
          details: { type: ['object', 'null'], description: 'Per code, e.g. `field` for 2000.' },
        },
      },
      request_id: { type: ['string', 'null'], description: 'Quote it to support; also the X-Request-Id header.' },
    },
  },
  ...Object.fromEntries(statuses.map((status) => [
    `Error${status}`,
    narrowed(ofStatus(status).map((s) => errorCatalog[s].code), ofStatus(status), `The error envelope of a ${status} answer: only these codes.`),
  ])),
};
