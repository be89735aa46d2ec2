/**
 * Schemas are contracts and topics are declared once: the registry refuses an incompatible change of a
 * subject, accepts a compatible one, and start-up refuses a topic whose partition count differs.
 */
import { COMPATIBILITY } from '@kafkajs/confluent-schema-registry';
import { topicName, topics } from '../../topics';
import { createRuntime, type Runtime } from '../../services/runtime';
import { readSchema, registerSchema, subjectFor } from '../../services/platform/wire/registry';
import { KafkaLog } from '../../services/platform/kafka';
import { dropWorld, newWorld, openRuntime, type World } from '../support/world';

let world: World;
let rt: Runtime;

beforeAll(async () => {
  world = newWorld('schemas');
  rt = await openRuntime(world);
});

afterAll(async () => {
  if (world) await dropWorld(world, rt);
  await rt?.close();
});

function withField(schemaText: string, field: Record<string, unknown>): string {
  const schema = JSON.parse(schemaText);
  schema.fields.push(field);
  return JSON.stringify(schema);
}

test('every declared topic has its key and value schema registered under the topic name strategy', async () => {
  for (const key of Object.keys(topics) as Array<keyof typeof topics>) {
    const topic = topicName(world.cfg.topicPrefix, key);
    expect(await rt.registry.getLatestSchemaId(subjectFor(topic, 'value'))).toBe(rt.codec.topics[key].valueId);
    expect(await rt.registry.getLatestSchemaId(subjectFor(topic, 'key'))).toBe(rt.codec.topics[key].keyId);
  }
});

test('an incompatible change to a value schema is refused; a compatible one is accepted', async () => {
  const subject = subjectFor(rt.codec.topicName('accountEvents'), 'value');
  const current = readSchema(topics.accountEvents.valueSchema);
  // A new required field without a default: new readers cannot read old records.
  const breaking = withField(current, { name: 'region', type: 'string' });
  await expect(registerSchema(rt.registry, subject, breaking)).rejects.toThrow(/409|incompatible|compatib/i);
  // The same field with a default reads old records fine.
  const additive = withField(current, { name: 'region', type: ['null', 'string'], default: null });
  const id = await registerSchema(rt.registry, subject, additive);
  expect(id).not.toBe(rt.codec.topics.accountEvents.valueId);
  expect(COMPATIBILITY.BACKWARD).toBe('BACKWARD');
});

test('start-up refuses a topic whose partition count differs from its declaration', async () => {
  const other = newWorld('partitions', { TOPIC_PARTITIONS: '3' });
  const log = new KafkaLog(other.cfg.KAFKA_BROKERS, 'test', other.cfg.topicPrefix);
  try {
    // Another deployment made the topic with 2 partitions.
    await log.ensureTopics([{ name: topicName(other.cfg.topicPrefix, 'accountCommands'), partitions: 2, decl: topics.accountCommands }]);
    await expect(createRuntime(other.cfg)).rejects.toThrow(/has 2 partitions, the declaration says 3/);
  } finally {
    await log.deleteTopics([topicName(other.cfg.topicPrefix, 'accountCommands'), topicName(other.cfg.topicPrefix, 'accountEvents')]);
    await log.disconnect();
    await dropWorld(other);
  }
});
