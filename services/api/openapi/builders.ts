/** The small schema builders every `*-paths.ts` file writes its operations with (declared once). */
export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
export const json = (description: string, schema: unknown) => ({ description, content: { 'application/json': { schema } } });
/** A closed object; every property required unless `required` says otherwise. */
export const obj = (properties: Record<string, unknown>, required: string[] = Object.keys(properties)) => ({
  type: 'object', additionalProperties: false, required, properties,
});
export const nullable = (schema: Record<string, unknown>) => ({ oneOf: [schema, { type: 'null' }] });
export const dateTime = { type: 'string', format: 'date-time' };
