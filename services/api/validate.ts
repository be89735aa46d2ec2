/**
 * Request validation from the OpenAPI document: each operation's JSON body and query parameters are
 * checked against the schemas declared there. Unknown fields, wrong types and bad formats answer 400 2000
 * with `details.field` naming the first offending field. Before any schema, every string of the path
 * parameters, the query and the body must be text PostgreSQL can store (no U+0000, no lone surrogate).
 */
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { RequestHandler } from 'express';
import type { OpenApiDocument, Operation } from './openapi/operation';
import { unstorableField } from '../identity/text-rules';
import { ApiError } from './errors';

const DOC_ID = 'https://energy-rental.local/openapi.json';

const ajvDateTime = addFormats.get('date-time') as { validate: (s: string) => boolean } | ((s: string) => boolean);
const rfc3339 = typeof ajvDateTime === 'function' ? ajvDateTime : ajvDateTime.validate;

/**
 * RFC 3339 date-times that are also instants the service can compute with and store: a leap second
 * (23:59:60) is valid RFC 3339 but no JavaScript Date (nor PostgreSQL timestamptz value), and years
 * outside 0001..9999 are refused, so a filter never becomes an invalid date inside a query.
 */
export function storableDateTime(text: string): boolean {
  if (!rfc3339(text)) return false;
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) return false;
  const year = new Date(ms).getUTCFullYear();
  return year >= 1 && year <= 9999;
}

function unstorable(field: string, where: string): ApiError {
  return new ApiError('invalid_request', `\`${field}\` must not contain U+0000 or unpaired surrogates (${where}).`, { field });
}

function fieldOf(error: ErrorObject, root: string): string {
  const path = error.instancePath
    .split('/')
    .filter(Boolean)
    .map((p) => (/^\d+$/.test(p) ? `[${p}]` : `.${p}`))
    .join('');
  const extra =
    error.keyword === 'additionalProperties' ? `.${(error.params as { additionalProperty: string }).additionalProperty}`
    : error.keyword === 'required' ? `.${(error.params as { missingProperty: string }).missingProperty}`
    : '';
  const full = `${root}${path}${extra}`.replace(/^\./, '');
  return full || root || 'body';
}

function messageOf(error: ErrorObject, field: string): string {
  if (error.keyword === 'additionalProperties') return `Unknown field \`${field}\`.`;
  if (error.keyword === 'required') return `Missing required field \`${field}\`.`;
  if (error.keyword === INT64_KEYWORD) return `\`${field}\` must be a non-negative int64.`;
  return `\`${field}\` ${error.message ?? 'is invalid'}.`;
}

/**
 * Whether the JSON text the body was parsed from has no backslash: then none of its strings (keys included)
 * can hold U+0000 or a lone surrogate, which JSON text can only carry as `\u` escapes (a raw NUL is not
 * JSON, and undecodable UTF-8 reads as U+FFFD), so the walk over every string of the body is skipped.
 */
function escapeFree(raw: Buffer | undefined): boolean {
  return raw !== undefined && raw.length > 0 && raw.indexOf(0x5c) === -1;
}

/**
 * `type: integer, format: int64` as the document says it, checked as the body parser hands it over: a
 * number or, beyond 2^53, a bigint (ajv's `integer` knows no bigint). Range checks stay with the routes.
 */
const INT64_KEYWORD = 'x-int64';
function int64AsKeyword(schema: unknown): object {
  if (Array.isArray(schema)) return schema.map(int64AsKeyword);
  if (typeof schema !== 'object' || schema === null) return schema as object;
  const entries = Object.entries(schema).map(([k, v]) => [k, int64AsKeyword(v)] as const);
  const node = Object.fromEntries(entries) as Record<string, unknown>;
  if (node.format !== 'int64' || node.type !== 'integer') return node;
  const { type: _type, format: _format, ...rest } = node;
  return { ...rest, [INT64_KEYWORD]: true };
}

export class RequestValidator {
  private readonly bodyAjv = new Ajv2020({ strict: false, allErrors: false });
  private readonly queryAjv = new Ajv2020({ strict: false, allErrors: false, coerceTypes: 'array' });
  private readonly byOperation = new Map<string, { body?: ValidateFunction; query?: ValidateFunction; bodyRequired: boolean }>();

  constructor(doc: OpenApiDocument) {
    for (const ajv of [this.bodyAjv, this.queryAjv]) {
      addFormats(ajv);
      ajv.addFormat('date-time', storableDateTime);
      ajv.addKeyword({ keyword: INT64_KEYWORD, errors: false, validate: (_s: unknown, data: unknown) => typeof data === 'bigint' || Number.isInteger(data) });
      ajv.addSchema({ $id: DOC_ID, components: int64AsKeyword(doc.components) } as object);
    }
    for (const [, methods] of Object.entries(doc.paths)) {
      for (const [, op] of Object.entries(methods)) this.byOperation.set(op.operationId, this.compile(op));
    }
  }

  private compile(op: Operation) {
    const bodySchema = op.requestBody?.content['application/json'].schema;
    const queryParams = (op.parameters ?? []).filter((p) => p.in === 'query');
    const withRefs = (schema: unknown) => <object>int64AsKeyword(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', `"${DOC_ID}#/components/`)));
    return {
      bodyRequired: op.requestBody?.required ?? false,
      body: bodySchema ? this.bodyAjv.compile(withRefs(bodySchema)) : undefined,
      query: queryParams.length
        ? this.queryAjv.compile(
            withRefs({
              type: 'object',
              additionalProperties: false,
              required: queryParams.filter((p) => p.required).map((p) => p.name),
              properties: Object.fromEntries(queryParams.map((p) => [p.name, p.schema])),
            }),
          )
        : undefined,
    };
  }

  /** Middleware validating the request against the named operation. */
  for(operationId: string): RequestHandler {
    const entry = this.byOperation.get(operationId);
    if (!entry) throw new Error(`operation ${operationId} is not in the OpenAPI document`);
    return (req, _res, next) => {
      for (const [name, value] of Object.entries(req.params ?? {})) {
        if (unstorableField(value) !== null) return next(unstorable(name, 'path'));
      }
      const badQuery = unstorableField(req.query);
      if (badQuery !== null) return next(unstorable(badQuery, 'query'));
      const badBody = escapeFree(req.rawBody) ? null : unstorableField(req.body);
      if (badBody !== null) return next(unstorable(badBody, 'body'));
      const query = { ...(req.query as Record<string, unknown>) };
      if (entry.query && !entry.query(query)) {
        const err = entry.query.errors![0];
        const field = fieldOf(err, '');
        return next(new ApiError('invalid_request', messageOf(err, field), { field }));
      }
      if (!entry.query && Object.keys(query).length > 0) {
        const field = Object.keys(query)[0];
        return next(new ApiError('invalid_request', `Unknown query parameter \`${field}\`.`, { field }));
      }
      _res.locals.query = query;
      if (req.body === undefined) {
        if (entry.bodyRequired) return next(new ApiError('invalid_request', 'A JSON body is required.', { field: 'body' }));
      } else if (!entry.body) {
        return next(new ApiError('invalid_request', 'This operation takes no body.', { field: 'body' }));
      } else if (!entry.body(req.body)) {
        const err = entry.body.errors![0];
        const field = fieldOf(err, '');
        return next(new ApiError('invalid_request', messageOf(err, field), { field: field || 'body' }));
      }
      next();
    };
  }
}
