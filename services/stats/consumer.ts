/**
 * The stats projection role: a consumer group on order-events. Per partition, a batch of events is
 * projected in one PostgreSQL transaction together with the group's stored offset (compare-and-set), the
 * checkpointed-consumer pattern of the processor and the dispatcher's intake. Everything Kafka- and
 * offset-shaped is in this file, so it can move onto the shared checkpointed consumer (services/platform)
 * by handing it `projectRecords` as its apply(batch, tx).
 */
import { inTransaction, type Pool, type PoolClient } from '../platform/db/pool';
import type { ConsumedRecord, KafkaLog, RunningConsumer } from '../platform/kafka';
import { logger } from '../platform/logger';
import type { LogCodec } from '../platform/wire/codec';
import { advanceStoredOffset, lockStoredOffset } from '../processor/store';
import { factsOf, project, type OrderFacts } from './projection';
import { loadContributions, recordUndecodableOrderEvent, saveProjected } from './store';

export const STATS_GROUP = 'stats-projection';

export interface StatsDeps {
  log: KafkaLog;
  codec: LogCodec;
  pool: Pool;
  groupId?: string;
  onProjected?: (partition: number, count: number) => void;
}

type Decoded = { record: ConsumedRecord; facts: OrderFacts } | { record: ConsumedRecord; error: string };

export async function decodeOrderEvents(codec: LogCodec, records: ConsumedRecord[]): Promise<Decoded[]> {
  return Promise.all(records.map(async (record) => {
    try {
      if (!record.value) throw new Error('empty record');
      return { record, facts: factsOf((await codec.decodeOrderEvent(record.value)).order) };
    } catch (err) {
      return { record, error: (err as Error).message };
    }
  }));
}

/** apply(batch, tx): projects decoded records inside the caller's transaction. */
export async function projectRecords(client: PoolClient, decoded: Decoded[]): Promise<void> {
  for (const d of decoded) if ('error' in d) await recordUndecodableOrderEvent(client, d.record.topic, d.record.partition, d.record.offset, d.error);
  const facts = decoded.flatMap((d) => ('facts' in d ? [d.facts] : []));
  const previous = await loadContributions(client, [...new Set(facts.map((f) => f.orderId))]);
  await saveProjected(client, project(previous, facts));
}

export type StatsSliceOutcome = { seekTo: bigint } | { applied: number; last: bigint };

/**
 * One transaction: lock the stored offset, project the records at or after it, move it past the last one.
 * When the batch does not contain the stored offset nothing is projected and the caller seeks to it.
 */
export async function projectSlice(pool: Pool, where: { group: string; topic: string; partition: number }, decoded: Decoded[]): Promise<StatsSliceOutcome> {
  return inTransaction(pool, async (client): Promise<StatsSliceOutcome> => {
    const stored = await lockStoredOffset(client, where.group, where.topic, where.partition);
    const first = decoded[0].record.offset;
    const last = decoded[decoded.length - 1].record.offset;
    if (first > stored || last < stored) return { seekTo: stored };
    const fresh = decoded.filter((d) => d.record.offset >= stored);
    await projectRecords(client, fresh);
    await advanceStoredOffset(client, where.group, where.topic, where.partition, stored, last + 1n);
    return { applied: fresh.length, last };
  });
}

export async function startStatsProjection(deps: StatsDeps): Promise<RunningConsumer> {
  const topic = deps.codec.topicName('orderEvents');
  const group = deps.groupId ?? STATS_GROUP;
  return deps.log.runBatchConsumer({
    groupId: group,
    topics: [topic],
    partitionsConcurrently: 3,
    handler: async (batch, control) => {
      const decoded = await decodeOrderEvents(deps.codec, batch.records);
      const outcome = await projectSlice(deps.pool, { group, topic, partition: batch.partition }, decoded);
      if ('seekTo' in outcome) {
        logger.info({ topic, partition: batch.partition, offset: String(outcome.seekTo) }, 'stats projection seeking to the stored offset');
        control.seek(outcome.seekTo);
        return;
      }
      control.resolve(outcome.last);
      deps.onProjected?.(batch.partition, outcome.applied);
      await control.heartbeat();
    },
  });
}
