/**
 * Checks the running schema registry against the client the service uses,
 * @kafkajs/confluent-schema-registry, the way the service calls it.
 *
 *   SCHEMA_REGISTRY_URL=http://127.0.0.1:18081/apis/ccompat/v7 npx tsx infra/registry/check-client.ts
 *
 * Every subject it makes is new (a run id in its name), so it can run against a live
 * registry any number of times. Exits non-zero if any check fails.
 */
import {
  COMPATIBILITY,
  SchemaRegistry,
  SchemaType,
} from '@kafkajs/confluent-schema-registry';

const host = process.env.SCHEMA_REGISTRY_URL ?? 'http://127.0.0.1:8081/apis/ccompat/v7';
const run = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;

const v1 = {
  type: 'record',
  name: 'Probe',
  namespace: 'stack.check',
  fields: [{ name: 'id', type: 'string' }],
};
// Backward compatible: a new field with a default.
const v2 = { ...v1, fields: [...v1.fields, { name: 'note', type: 'string', default: '' }] };
// Not backward compatible: a new field without a default.
const bad = { ...v1, fields: [...v1.fields, { name: 'amount', type: 'long' }] };

const avro = (schema: object) => ({ type: SchemaType.AVRO as const, schema: JSON.stringify(schema) });

/**
 * Apicurio answers GET /config/{subject} for a subject without a rule of its own with
 * NONE, not the global level, unless asked with ?defaultToGlobal=true (Confluent's own
 * parameter). The client compares that answer with the compatibility it was given, so a
 * subject created by anything but this client would fail every later register(). This
 * middleware adds the parameter; the service can pass it as `middlewares`.
 */
const defaultToGlobal = () => ({
  async prepareRequest(next: () => Promise<any>) {
    const req = await next();
    const isSubjectConfig = req.method() === 'get' && /\/config\/[^/?]+$/.test(req.path().split('?')[0]);
    return isSubjectConfig ? req.enhance({ params: { defaultToGlobal: true } }) : req;
  },
});

let passed = 0;
let failed = 0;
async function check(name: string, fn: () => Promise<string | void>) {
  try {
    const detail = await fn();
    passed++;
    console.log(`ok   ${name}${detail ? ` (${detail})` : ''}`);
  } catch (e) {
    failed++;
    console.log(`FAIL ${name}: ${(e as Error).message}`);
  }
}

async function expectRejected(p: Promise<unknown>, pattern: RegExp): Promise<string> {
  try {
    await p;
  } catch (e) {
    const msg = `${(e as Error).message} ${(e as any).status ?? ''}`;
    if (pattern.test(msg)) return `refused: ${msg.slice(0, 100)}`;
    throw new Error(`refused, but not as expected: ${msg}`);
  }
  throw new Error('accepted, expected a refusal');
}

async function main() {
  console.log(`registry ${host}, run ${run}`);
  const registry = new SchemaRegistry({ host });
  const subject = `check-${run}-value`;
  const opts = { subject, compatibility: COMPATIBILITY.BACKWARD };
  let id1 = 0;

  await check('global compatibility is BACKWARD', async () => {
    const res = await fetch(`${host}/config`);
    const body = (await res.json()) as { compatibilityLevel?: string };
    if (body.compatibilityLevel !== 'BACKWARD') throw new Error(JSON.stringify(body));
    return JSON.stringify(body);
  });

  await check('register on a new subject', async () => {
    id1 = (await registry.register(avro(v1), opts)).id;
    return `id ${id1}`;
  });

  await check('register the same schema again on the existing subject', async () => {
    const { id } = await registry.register(avro(v1), opts);
    if (id !== id1) throw new Error(`id ${id} != ${id1}`);
    return `same id ${id}`;
  });

  await check('register a third time (cached and uncached client alike)', async () => {
    const fresh = new SchemaRegistry({ host });
    const { id } = await fresh.register(avro(v1), opts);
    if (id !== id1) throw new Error(`id ${id} != ${id1}`);
    return `same id ${id}`;
  });

  await check('the same schema with other whitespace keeps its id (canonical hash)', async () => {
    const { id } = await registry.register(
      { type: SchemaType.AVRO, schema: JSON.stringify(v1, null, 2) },
      opts,
    );
    if (id !== id1) throw new Error(`id ${id} != ${id1}`);
    return `same id ${id}`;
  });

  await check('register a backward-compatible change', async () => {
    const { id } = await registry.register(avro(v2), opts);
    if (id === id1) throw new Error('same id as v1');
    return `id ${id}`;
  });

  await check('an incompatible change is refused with 409', async () =>
    expectRejected(registry.register(avro(bad), opts), /409|incompatible/i));

  await check('encode and decode with the wire format', async () => {
    const buf = await registry.encode(id1, { id: 'abc' });
    if (buf[0] !== 0 || buf.readInt32BE(1) !== id1) throw new Error('bad wire header');
    const back = await new SchemaRegistry({ host }).decode(buf);
    if (back.id !== 'abc') throw new Error(JSON.stringify(back));
    return `${buf.length} bytes`;
  });

  await check('getLatestSchemaId', async () => {
    const id = await registry.getLatestSchemaId(subject);
    return `id ${id}`;
  });

  // A subject created without the client (REST, another tool): no subject-level rule.
  const foreign = `check-${run}-foreign-value`;
  await fetch(`${host}/subjects/${foreign}/versions`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/vnd.schemaregistry.v1+json' },
    body: JSON.stringify({ schema: JSON.stringify(v1) }),
  });
  await check('subject made elsewhere: plain client refuses (known Apicurio mismatch)', async () =>
    expectRejected(
      registry.register(avro(v1), { subject: foreign, compatibility: COMPATIBILITY.BACKWARD }),
      /Compatibility does not match/,
    ));
  await check('subject made elsewhere: client with the defaultToGlobal middleware works', async () => {
    const patched = new SchemaRegistry({ host, middlewares: [defaultToGlobal as any] });
    const { id } = await patched.register(avro(v1), { subject: foreign, compatibility: COMPATIBILITY.BACKWARD });
    const again = await patched.register(avro(v2), { subject: foreign, compatibility: COMPATIBILITY.BACKWARD });
    return `ids ${id}, ${again.id}`;
  });
  await check('with the middleware an incompatible change is still refused', async () => {
    const patched = new SchemaRegistry({ host, middlewares: [defaultToGlobal as any] });
    return expectRejected(
      patched.register(avro(bad), { subject: foreign, compatibility: COMPATIBILITY.BACKWARD }),
      /409|incompatible/i,
    );
  });

  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed === 0 ? 0 : 1);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
