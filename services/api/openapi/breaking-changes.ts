/**
 * The changes between two versions of the API document that break a client written against the older
 * one (the rules of oasdiff's "breaking" check that this document can meet): an operation or success
 * answer removed; a parameter or body field newly required, or a new required one; a request field a
 * closed body no longer takes; a request enum value removed; a response field removed or no longer
 * required; a type changed. Additions a tolerant client ignores (new operations, optional fields, new
 * response enum values: the contract says to ignore unknown values) are not breaks. Pure: two documents in,
 * a list of sentences out (test/unit/openapi/breaking-changes.test.ts runs it against the last commit's copy).
 */
type Schema = Record<string, unknown>;
export interface ApiDocument {
  paths: Record<string, Record<string, Schema>>;
  components?: { schemas?: Record<string, Schema> };
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];
const MAX_DEPTH = 10;

function resolve(schema: Schema | undefined, doc: ApiDocument): Schema | undefined {
  let current = schema;
  for (let hops = 0; current && typeof current.$ref === 'string' && hops < 20; hops++) {
    current = doc.components?.schemas?.[(current.$ref as string).replace('#/components/schemas/', '')];
  }
  return current;
}

/** The types a schema admits, `oneOf`/`anyOf` branches and nullability included; empty: any. */
function typesOf(schema: Schema, doc: ApiDocument): Set<string> {
  const out = new Set<string>();
  const add = (t: unknown) => (Array.isArray(t) ? t : [t]).forEach((x) => typeof x === 'string' && out.add(x === 'integer' ? 'number' : x));
  add(schema.type);
  for (const key of ['oneOf', 'anyOf']) {
    for (const branch of (schema[key] as Schema[] | undefined) ?? []) {
      const r = resolve(branch, doc);
      if (r) typesOf(r, doc).forEach((t) => out.add(t));
    }
  }
  return out;
}

/** Object properties and required names, `allOf` parts merged. */
function shapeOf(schema: Schema, doc: ApiDocument): { properties: Record<string, Schema>; required: Set<string>; closed: boolean } {
  const properties: Record<string, Schema> = { ...((schema.properties as Record<string, Schema>) ?? {}) };
  const required = new Set<string>((schema.required as string[]) ?? []);
  let closed = schema.additionalProperties === false;
  for (const part of (schema.allOf as Schema[] | undefined) ?? []) {
    const r = resolve(part, doc);
    if (!r) continue;
    const inner = shapeOf(r, doc);
    Object.assign(properties, inner.properties);
    inner.required.forEach((n) => required.add(n));
    closed ||= inner.closed;
  }
  return { properties, required, closed };
}

type Direction = 'request' | 'response';

function compareSchemas(before: Schema | undefined, after: Schema | undefined, docs: [ApiDocument, ApiDocument], where: string, dir: Direction, out: string[], depth = 0): void {
  const a = resolve(before, docs[0]);
  const b = resolve(after, docs[1]);
  if (!a || !b || depth > MAX_DEPTH) return;
  const [ta, tb] = [typesOf(a, docs[0]), typesOf(b, docs[1])];
  if (ta.size > 0 && tb.size > 0) {
    // A request may widen what it accepts, a response may not; each may not drop what the other side relies on.
    const lost = dir === 'request' ? [...ta].filter((t) => !tb.has(t)) : [...tb].filter((t) => !ta.has(t));
    if (lost.length > 0) out.push(`${where}: type ${[...ta].join('|')} became ${[...tb].join('|')}`);
  }
  if (Array.isArray(a.enum) && dir === 'request') {
    const kept = new Set(Array.isArray(b.enum) ? b.enum : a.enum);
    for (const v of a.enum) if (!kept.has(v)) out.push(`${where}: request value ${JSON.stringify(v)} no longer accepted`);
  }
  const [sa, sb] = [shapeOf(a, docs[0]), shapeOf(b, docs[1])];
  for (const [name, prop] of Object.entries(sa.properties)) {
    const path = `${where}.${name}`;
    if (!(name in sb.properties)) {
      if (dir === 'response' && sa.required.has(name)) out.push(`${path}: response field removed`);
      if (dir === 'request' && sb.closed) out.push(`${path}: request field no longer accepted`);
      continue;
    }
    if (dir === 'response' && sa.required.has(name) && !sb.required.has(name)) out.push(`${path}: response field no longer required`);
    if (dir === 'request' && !sa.required.has(name) && sb.required.has(name)) out.push(`${path}: request field became required`);
    compareSchemas(prop, sb.properties[name], docs, path, dir, out, depth + 1);
  }
  if (dir === 'request') {
    for (const name of sb.required) if (!(name in sa.properties)) out.push(`${where}.${name}: new required request field`);
  }
  if (a.items || b.items) compareSchemas(a.items as Schema, b.items as Schema, docs, `${where}[]`, dir, out, depth + 1);
}

const jsonSchema = (holder: Schema | undefined) => (holder?.content as Record<string, Schema> | undefined)?.['application/json']?.schema as Schema | undefined;

/** Every breaking change from `before` to `after`, as sentences naming the place. */
export function breakingChanges(before: ApiDocument, after: ApiDocument): string[] {
  const out: string[] = [];
  const docs: [ApiDocument, ApiDocument] = [before, after];
  for (const [path, item] of Object.entries(before.paths)) {
    for (const method of METHODS.filter((m) => item[m])) {
      const where = `${method.toUpperCase()} ${path}`;
      const [opA, opB] = [item[method], after.paths[path]?.[method]];
      if (!opB) {
        out.push(`${where}: operation removed`);
        continue;
      }
      const params = (op: Schema) => new Map(((op.parameters as Schema[]) ?? []).map((p) => [`${p.in}:${p.name}`, p]));
      const [pa, pb] = [params(opA), params(opB)];
      for (const [key, p] of pb) {
        if (p.required && !pa.get(key)?.required) out.push(`${where}: parameter ${key} ${pa.has(key) ? 'became required' : 'added as required'}`);
        if (pa.has(key)) compareSchemas(pa.get(key)!.schema as Schema, p.schema as Schema, docs, `${where} ${key}`, 'request', out);
      }
      const [ba, bb] = [opA.requestBody as Schema | undefined, opB.requestBody as Schema | undefined];
      if (bb?.required && !ba?.required) out.push(`${where}: request body became required`);
      if (ba && !bb) out.push(`${where}: request body no longer accepted`);
      compareSchemas(jsonSchema(ba), jsonSchema(bb), docs, `${where} body`, 'request', out);
      const [ra, rb] = [(opA.responses ?? {}) as Record<string, Schema>, (opB.responses ?? {}) as Record<string, Schema>];
      for (const [status, response] of Object.entries(ra)) {
        if (!status.startsWith('2')) continue;
        if (!rb[status]) out.push(`${where}: ${status} answer removed`);
        else compareSchemas(jsonSchema(response), jsonSchema(rb[status]), docs, `${where} ${status}`, 'response', out);
      }
    }
  }
  return out;
}
