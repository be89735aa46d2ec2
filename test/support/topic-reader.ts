/** Reads a whole topic of a test world, decoded, to check what reached the log. */
import type { Runtime } from '../../services/runtime';
import type { TopicKey } from '../../topics';

export interface ReadRecord<T> {
  partition: number;
  offset: bigint;
  headers: Record<string, string>;
  raw: Buffer;
  value: T;
}

export async function readTopic<T>(rt: Runtime, key: TopicKey): Promise<Array<ReadRecord<T>>> {
  const topic = rt.codec.topicName(key);
  const out: Array<ReadRecord<T>> = [];
  await rt.log.scan(topic, await rt.log.endOffsets(topic), async (batch) => {
    for (const r of batch.records) {
      const value = (key === 'accountEvents' ? await rt.codec.decodeEvent(r.value!) : await rt.codec.decodeCommand(r.value!)) as T;
      out.push({ partition: r.partition, offset: r.offset, headers: r.headers, raw: r.value!, value });
    }
  });
  return out;
}
