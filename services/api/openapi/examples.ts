/**
 * Completes the document for the tools that read it: every operation gets a description (its summary and
 * who may call it, from its security) and every JSON request and success body an example made from its
 * schema, unless one was written by hand. Redocly's `no-invalid-media-type-examples` validates each example
 * against its schema (test/unit/openapi/document-quality.test.ts), so a sample that drifts from the schema
 * fails the build's checks instead of misleading a reader.
 */
import type { OpenApiDocument, Operation } from './operation';

type Schema = Record<string, unknown>;

/** Sample values for the string patterns the document uses (a pattern cannot be sampled in general). */
const PATTERN_SAMPLES: Record<string, string> = {
  '^T[1-9A-HJ-NP-Za-km-z]{33}$': 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8',
  '^[0-9a-f]{64}$': '9f1c2a4b5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708',
  '^(0x)?[0-9a-fA-F]{130}$': `0x${'ab'.repeat(65)}`,
  '^[A-Za-z0-9._:-]{8,128}$': 'invoice-42-attempt',
  '^[0-9]+$': '1',
  '^[0-9]{1,12}$': '1763800000',
  '^abt_': 'abt_4f3c2b1a0e9d8c7b',
  '^adr_': 'adr_01J9Z3Q4V8X2',
  '^key_': 'key_01J9Z3Q4V8X2',
};

const FORMAT_SAMPLES: Record<string, string> = {
  'date-time': '2026-12-01T10:00:00Z',
  date: '2026-12-01',
  email: 'ops@example.com',
  uri: 'https://hooks.example.com/energy',
};

function resolve(schema: Schema, doc: OpenApiDocument): Schema {
  const target = schema.$ref;
  if (typeof target !== 'string') return schema;
  const name = target.replace('#/components/schemas/', '');
  return resolve(doc.components.schemas[name] as Schema, doc);
}

/** A value valid under `schema` (for the keywords this document uses), or undefined when none is known. */
export function sampleOf(input: Schema, doc: OpenApiDocument, depth = 0): unknown {
  const schema = resolve(input, doc);
  if (depth > 12) return undefined;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  for (const key of ['oneOf', 'anyOf'] as const) {
    const options = schema[key] as Schema[] | undefined;
    if (options) return sampleOf(options.find((o) => resolve(o, doc).type !== 'null') ?? options[0], doc, depth + 1);
  }
  if (Array.isArray(schema.allOf)) {
    return Object.assign({}, ...(schema.allOf as Schema[]).map((s) => sampleOf(s, doc, depth + 1) as object));
  }
  const type = Array.isArray(schema.type) ? (schema.type as string[]).find((t) => t !== 'null') : schema.type;
  switch (type) {
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      const required = new Set((schema.required as string[] | undefined) ?? []);
      const out: Record<string, unknown> = {};
      // Required properties, and optional ones too on a request (a fuller example teaches more), but not past depth 3.
      for (const [name, prop] of Object.entries(properties)) {
        if (!required.has(name) && depth > 2) continue;
        const value = sampleOf(prop, doc, depth + 1);
        if (value !== undefined) out[name] = value;
      }
      return out;
    }
    case 'array': {
      const item = schema.items ? sampleOf(schema.items as Schema, doc, depth + 1) : undefined;
      const min = typeof schema.minItems === 'number' ? schema.minItems : 1;
      return item === undefined || (schema.maxItems === 0) ? [] : Array.from({ length: Math.max(1, min) }, () => item);
    }
    case 'integer':
    case 'number': {
      const min = typeof schema.minimum === 'number' ? schema.minimum : 0;
      const max = typeof schema.maximum === 'number' ? schema.maximum : Number.MAX_SAFE_INTEGER;
      return typeof schema.default === 'number' ? schema.default : Math.min(max, Math.max(min, 1));
    }
    case 'boolean':
      return typeof schema.default === 'boolean' ? schema.default : false;
    case 'string': {
      if (typeof schema.default === 'string') return schema.default;
      if (typeof schema.pattern === 'string') return PATTERN_SAMPLES[schema.pattern];
      if (typeof schema.format === 'string' && FORMAT_SAMPLES[schema.format]) return FORMAT_SAMPLES[schema.format];
      const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
      return 'example'.padEnd(min, 'x');
    }
    case 'null':
      return null;
    default:
      return undefined;
  }
}

function whoMayCall(op: Operation): string {
  if (!op.security || op.security.length === 0) return 'Public: no credentials.';
  const ways = op.security.map((requirement) => {
    const entry = Object.entries(requirement)[0];
    if (!entry) return 'no credentials';
    const [scheme, scopes] = entry;
    if (scheme === 'apiKey') return scopes.length ? `an API key with scope ${scopes.map((s) => `\`${s}\``).join(' and ')}` : 'an API key';
    if (scheme === 'session') return 'a dashboard session (with X-CSRF-Token on writes)';
    if (scheme === 'bootstrapToken') return 'a bootstrap token';
    return `\`${scheme}\``;
  });
  return `Credentials: ${ways.join(', or ')}.`;
}

/** Adds the descriptions and examples described at the top of this file, in place. */
export function completeDocument(doc: OpenApiDocument): OpenApiDocument {
  for (const methods of Object.values(doc.paths)) {
    for (const op of Object.values(methods)) {
      op.description ??= `${op.summary} ${whoMayCall(op)}`;
      const body = op.requestBody?.content['application/json'];
      if (body && body.example === undefined) body.example = sampleOf(body.schema as Schema, doc);
      for (const [status, response] of Object.entries(op.responses)) {
        const media = response.content?.['application/json'];
        if (!status.startsWith('2') || !media || media.example !== undefined) continue;
        const sample = sampleOf(media.schema as Schema, doc);
        if (sample !== undefined) media.example = sample;
      }
    }
  }
  return doc;
}
