/**
 * Schemas under schemas/ registered in a Confluent-compatible registry with BACKWARD compatibility, and
 * the Confluent wire format (magic byte, schema id, Avro body) for every key and value on the log.
 */
import { COMPATIBILITY, SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { topicName, topics, type TopicKey } from '../../../topics';
import { repoRoot } from '../paths';
import { bigintLongHook } from './avro-long';
import type { RegistryAccess } from './registry-access';

export function readSchema(file: string): string {
  // Compact JSON so the registry sees the same text whatever the file's layout.
  return JSON.stringify(JSON.parse(readFileSync(path.join(repoRoot(), 'schemas', file), 'utf8')));
}

/**
 * Apicurio answers GET /config/{subject} for a subject without a rule of its own with NONE rather than the
 * global BACKWARD unless asked with Confluent's `defaultToGlobal=true`; the client compares that answer
 * with the compatibility it registers with, so without this a subject made by any other tool would make
 * every later start-up fail.
 */
const defaultToGlobal = () => ({
  async prepareRequest(next: () => Promise<any>) {
    const req = await next();
    const isSubjectConfig = req.method() === 'get' && /\/config\/[^/?]+$/.test(req.path().split('?')[0]);
    return isSubjectConfig ? req.enhance({ params: { defaultToGlobal: true } }) : req;
  },
});

export function createRegistryClient(access: RegistryAccess): SchemaRegistry {
  return new SchemaRegistry(
    {
      host: access.url, clientId: 'energy-rental', middlewares: [defaultToGlobal as never],
      ...(access.agent ? { agent: access.agent } : {}), ...(access.auth ? { auth: access.auth } : {}),
    },
    // A type hook, not a shared `registry` object: avsc adds every named type it parses to that object,
    // so the second schema naming the same record would be refused as a duplicate.
    { [SchemaType.AVRO]: { typeHook: bigintLongHook } } as never,
  );
}

export function subjectFor(topic: string, part: 'key' | 'value'): string {
  return `${topic}-${part}`;
}

export interface TopicCodec {
  topic: string;
  keyId: number;
  valueId: number;
}

/** Registers the key and value schema of every declared topic; refuses to start on an incompatible change. */
export async function registerTopicSchemas(registry: SchemaRegistry, prefix: string): Promise<Record<TopicKey, TopicCodec>> {
  const result = {} as Record<TopicKey, TopicCodec>;
  for (const key of Object.keys(topics) as TopicKey[]) {
    const decl = topics[key];
    const topic = topicName(prefix, key);
    const keyId = await registerSchema(registry, subjectFor(topic, 'key'), readSchema(decl.keySchema));
    const valueId = await registerSchema(registry, subjectFor(topic, 'value'), readSchema(decl.valueSchema));
    result[key] = { topic, keyId, valueId };
  }
  return result;
}

export async function registerSchema(registry: SchemaRegistry, subject: string, schema: string): Promise<number> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      const { id } = await registry.register(
        { type: SchemaType.AVRO, schema },
        { subject, compatibility: COMPATIBILITY.BACKWARD },
      );
      return id;
    } catch (err) {
      // Roles started at once on a new subject race to set its compatibility rule; the losers are told the
      // rule "already exists" and, asked again, find it set (and the schema registered once).
      if (attempt >= 5 || !/already exists/i.test((err as Error).message)) throw err;
      await new Promise((r) => setTimeout(r, 50 * attempt));
    }
  }
}
