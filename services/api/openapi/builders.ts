/** The small schema builders every `*-paths.ts` file writes its operations with (declared once). */
import { errorResponse } from './shared-schemas';

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
export const json = (description: string, schema: unknown) => ({ description, content: { 'application/json': { schema } } });
/** A closed object; every property required unless `required` says otherwise. */
export const obj = (properties: Record<string, unknown>, required: string[] = Object.keys(properties)) => ({
  type: 'object', additionalProperties: false, required, properties,
});
export const errors = (...codes: string[]) => Object.fromEntries(codes.map((c) => [c, errorResponse(c === '429' ? 'rate limited (1020), Retry-After' : 'error')]));
export const nullable = (schema: Record<string, unknown>) => ({ oneOf: [schema, { type: 'null' }] });
export const dateTime = { type: 'string', format: 'date-time' };
