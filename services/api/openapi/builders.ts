/** The small schema builders every `*-paths.ts` file writes its operations with (declared once). */
import { errorResponse } from './shared-schemas';

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
export const json = (description: string, schema: unknown) => ({ description, content: { 'application/json': { schema } } });
/** A closed object; every property required unless `required` says otherwise. */
export const obj = (properties: Record<string, unknown>, required: string[] = Object.keys(properties)) => ({
  type: 'object', additionalProperties: false, required, properties,
});
const ERROR_MEANINGS: Record<string, string> = {
  '400': 'The request is malformed; nothing changed (`details.field` names the field).',
  '401': 'Missing, expired or wrong credentials or signature.',
  '402': 'The balance cannot cover this; nothing was charged.',
  '403': 'The credentials lack the scope or role this needs.',
  '404': 'No such resource for this account.',
  '409': 'The current state does not allow this.',
  '422': 'Well-formed but refused by a business rule.',
  '429': 'A budget is spent (1020); wait `Retry-After` seconds.',
  '500': 'Internal error; nothing is exposed. Safe to retry with the same idempotency key.',
  '502': 'The chain did not confirm in time.',
  '503': 'A dependency is away; nothing was stored or charged. Retry with the same idempotency key.',
};
export const errors = (...codes: string[]) => Object.fromEntries(codes.map((c) => [c, errorResponse(ERROR_MEANINGS[c] ?? 'Error.', c)]));
export const nullable = (schema: Record<string, unknown>) => ({ oneOf: [schema, { type: 'null' }] });
export const dateTime = { type: 'string', format: 'date-time' };
