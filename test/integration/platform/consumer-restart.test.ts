/**
 * A consumer that kafkajs will not restart is replaced. kafkajs restarts a crashed consumer only after an error
 * it deems retriable; any other crash (seen: "Failed to find group coordinator" while a broker came up under
 * load) left the role without a consumer for the life of its process. Here the handler's first batch fails with
 * a non-retriable error: the member crashes for good, a new one starts and gets the same record again.
 */
import { topics } from '../../../topics';
import { KafkaLog } from '../../../services/platform/kafka';
import { newWorld } from '../../support/world';

test('a consumer crashed with a non-retriable error is replaced and reads the record again', async () => {
  const world = newWorld('consumerrestart');
  const log = new KafkaLog(world.cfg.KAFKA_BROKERS, 'consumer-restart-test', world.cfg.topicPrefix, 30_000, 10);
  const topic = `${world.cfg.topicPrefix}restart-probe`;
  const seen: string[] = [];
  let handled!: () => void;
  const done = new Promise<void>((resolve) => (handled = resolve));
  try {
    await log.ensureTopics([{ name: topic, partitions: 1, decl: topics.accountCommands }]);
    await log.send(topic, [{ key: Buffer.from('k'), value: Buffer.from('the record') }]);
    const running = await log.runBatchConsumer({
      groupId: 'restart-probe',
      topics: [topic],
      handler: async (batch, control) => {
        seen.push(batch.records.map((r) => r.value?.toString()).join(','));
        if (seen.length === 1) throw Object.assign(new Error('not retriable, as a missing group coordinator was'), { retriable: false });
        control.resolve(batch.records[batch.records.length - 1].offset);
        handled();
      },
    });
    await Promise.race([done, new Promise((_, reject) => setTimeout(() => reject(new Error(`not handled again; seen ${JSON.stringify(seen)}`)), 45_000))]);
    await running.stop();
    expect(seen).toEqual(['the record', 'the record']);
  } finally {
    await log.deleteTopics([topic]).catch(() => undefined);
    await log.disconnect();
  }
}, 60_000);
