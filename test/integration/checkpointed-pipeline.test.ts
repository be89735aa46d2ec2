/**
 * The checkpointed consumer's pipelined slices (platform/checkpointed-consumer.ts): a slice's transaction is
 * sent while the slice before still commits and the fetch position moves past a slice when it starts. A slice
 * that then fails (a transient error, here a serialization failure in its apply, while later slices are already
 * under way, or at the end of the log with nothing after it) is applied again from the stored offset: every record once, in log order, the stored offset at the
 * end of the log.
 */
import { startCheckpointedConsumer } from '../../services/platform/checkpointed-consumer';
import type { RunningConsumer } from '../../services/platform/kafka';
import type { Runtime } from '../../services/platform/runtime';
import { dropWorld, eventually, newWorld, openRuntime, type World } from '../support/world';

let world: World;
let rt: Runtime;
let consumer: RunningConsumer | undefined;

beforeAll(async () => {
  world = newWorld('ckpipeline');
  rt = await openRuntime(world);
  await rt.pool.query('CREATE TABLE pipeline_seen (n int NOT NULL, at_offset bigint NOT NULL)');
});

afterAll(async () => {
  await consumer?.stop();
  await rt.log.deleteTopics(Object.values(rt.codec.topics).map((t) => t.topic)).catch(() => undefined);
  await dropWorld(world);
  await rt.close();
});

test('a slice failing after later ones started is applied again: each record once, in order, offset at the end', async () => {
  // A topic no role reads (this test's own consumer group on it).
  const topic = rt.codec.topicName('accountEvents');
  const TOTAL = 600;
  const send = (from: number, count: number) => rt.log.send(topic, Array.from({ length: count }, (_, i) => ({
    key: Buffer.from('one-partition'), value: Buffer.from(String(from + i)),
  })));
  await send(0, 300);
  let failures = 0;
  const failed = new Set<number>();
  let slices = 0;
  consumer = await startCheckpointedConsumer<number, number>({
    log: rt.log,
    pool: rt.pool,
    group: 'pipeline-test',
    topic,
    maxBatch: 25,
    decode: async (record) => Number((record.value as Buffer).toString()),
    apply: async (items, tx) => {
      slices++;
      // The slices holding record 310 (later slices under way) and the last record (nothing after it to notice)
      // fail once each as PostgreSQL's serialization failure (retried, never refused).
      const failing = items.find((i) => (i.value === 310 || i.value === TOTAL - 1) && !failed.has(i.value));
      if (failing) {
        failed.add(failing.value);
        failures++;
        throw Object.assign(new Error('could not serialize access'), { code: '40001' });
      }
      await tx.query('INSERT INTO pipeline_seen (n, at_offset) SELECT * FROM unnest($1::int[], $2::bigint[])', [
        items.map((i) => i.value), items.map((i) => i.record.offset),
      ]);
      return items.map((i) => i.value);
    },
  });
  await send(300, 300);
  const stored = await eventually(async () => {
    const { rows } = await rt.pool.query(
      `SELECT next_offset FROM consumer_offsets WHERE consumer_group = 'pipeline-test' AND topic = $1`, [topic],
    );
    const ends = await rt.log.endOffsets(topic);
    const end = [...ends.values()].reduce((a, b) => (b > a ? b : a), 0n);
    return rows.some((r) => r.next_offset === end) ? rows : undefined;
  }, 60_000, 'the stored offset at the end of the log');
  expect(stored).toHaveLength(1);
  expect(failures).toBe(2);
  expect(slices).toBeGreaterThanOrEqual(TOTAL / 25);
  const { rows } = await rt.pool.query('SELECT n FROM pipeline_seen ORDER BY at_offset');
  expect(rows.map((r) => r.n)).toEqual(Array.from({ length: TOTAL }, (_, i) => i));
});
