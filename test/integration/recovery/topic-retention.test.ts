/**
 * Topic retention that keeps every command (issue 15, item 4), on the real broker: start-up refuses an
 * account-commands topic whose settings would lose commands, whether it was created that way or altered
 * afterwards, and starts on one kept forever.
 */
import { ConfigResourceTypes, Kafka, logLevel } from 'kafkajs';
import { topicName, topics } from '../../../topics';
import { KafkaLog } from '../../../services/platform/kafka';
import { createRuntime } from '../../../services/runtime';
import { dropWorld, newWorld, openRuntime, type World } from '../../support/world';

const kafka = new Kafka({ brokers: process.env.KAFKA_BROKERS!.split(','), logLevel: logLevel.NOTHING });

async function withTopicsDeleted(world: World, fn: (log: KafkaLog) => Promise<void>): Promise<void> {
  const log = new KafkaLog(world.cfg.KAFKA_BROKERS, 'test', world.cfg.topicPrefix);
  try {
    await fn(log);
  } finally {
    await log.deleteTopics((Object.keys(topics) as Array<keyof typeof topics>).map((k) => topicName(world.cfg.topicPrefix, k)));
    await log.disconnect();
    await dropWorld(world);
  }
}

test('a commands topic created with a finite retention is refused, naming the setting and the fix', async () => {
  const world = newWorld('retfinite');
  await withTopicsDeleted(world, async (log) => {
    const name = topicName(world.cfg.topicPrefix, 'accountCommands');
    await log.ensureTopics([{ name, partitions: 3, decl: { ...topics.accountCommands, retentionMs: 604_800_000 } }]);
    const start = createRuntime(world.cfg);
    await expect(start).rejects.toThrow(`Refusing to run: topic ${name} would lose records.`);
    await expect(start).rejects.toThrow('retention.ms=604800000 deletes records older than that; declared -1 (forever)');
  });
});

test('a compacted commands topic is refused', async () => {
  const world = newWorld('retcompact');
  await withTopicsDeleted(world, async (log) => {
    const name = topicName(world.cfg.topicPrefix, 'accountCommands');
    await log.ensureTopics([{ name, partitions: 3, decl: { ...topics.accountCommands, cleanupPolicy: 'compact' } }]);
    await expect(createRuntime(world.cfg)).rejects.toThrow(/cleanup.policy=compact compacts away all but the latest record of each key/);
  });
});

test('a size limit added after creation is refused at the next start; the topic kept forever starts', async () => {
  const world = newWorld('retbytes');
  const rt = await openRuntime(world);
  const name = rt.codec.topicName('accountCommands');
  await rt.close();
  const admin = kafka.admin();
  await admin.connect();
  // AlterConfigs replaces the topic's whole set (an omitted setting falls back to the broker default).
  const settings = (bytes: string) => [
    { name: 'cleanup.policy', value: 'delete' },
    { name: 'retention.ms', value: '-1' },
    { name: 'retention.bytes', value: bytes },
  ];
  try {
    await admin.alterConfigs({ validateOnly: false, resources: [{ type: ConfigResourceTypes.TOPIC, name, configEntries: settings('1048576') }] });
    await expect(createRuntime(world.cfg)).rejects.toThrow(/retention.bytes=1048576 deletes the oldest records past that size; must be -1/);
    await admin.alterConfigs({ validateOnly: false, resources: [{ type: ConfigResourceTypes.TOPIC, name, configEntries: settings('-1') }] });
  } finally {
    await admin.disconnect();
  }
  const again = await createRuntime(world.cfg);
  await dropWorld(world, again);
  await again.close();
});
