/**
 * The stats projection role: a consumer group on order-events on the shared checkpointed consumer
 * (services/platform/checkpointed-consumer.ts): per partition, a slice of events is projected in one
 * PostgreSQL transaction together with the group's stored offset (compare-and-set). `statsSpec` is the
 * whole of what this role adds (decode + apply); `./bin/ops rebuild-stats` uses the same spec.
 */
import { startCheckpointedConsumer, type CheckpointSpec, type Item } from '../platform/checkpointed-consumer';
import type { PoolClient } from '../platform/db/pool';
import type { KafkaLog, RunningConsumer } from '../platform/kafka';
import type { Pool } from '../platform/db/pool';
import type { LogCodec } from '../platform/wire/codec';
import { factsOf, project, type OrderFacts } from './projection';
import { loadContributions, recordUndecodableOrderEvent, saveProjected } from './store';

export const STATS_GROUP = 'stats-projection';
/** Most order events projected in one transaction. */
const STATS_MAX_BATCH = 2_000;

export interface StatsDeps {
  log: KafkaLog;
  codec: LogCodec;
  pool: Pool;
  groupId?: string;
  onProjected?: (partition: number, count: number) => void;
}

/**
 * A record's facts, or why it did not decode. Undecodable order events are kept in the projection's own
 * `stats_undecodable` (not the shared undecodable_records, which replay compares with account-commands).
 */
export type StatsValue = { facts: OrderFacts } | { undecodable: string };

/** apply(batch, tx): projects decoded records inside the caller's transaction; returns how many it projected. */
export async function projectRecords(items: Item<StatsValue>[], client: PoolClient): Promise<number[]> {
  // The projection's rows and its stored offset commit together, so a commit lost in a server crash loses
  // both, and the role projects those records again: this transaction need not wait for its WAL flush.
  await client.query('SET LOCAL synchronous_commit TO off');
  const facts: OrderFacts[] = [];
  for (const { record, value } of items) {
    if ('undecodable' in value) await recordUndecodableOrderEvent(client, record.topic, record.partition, record.offset, value.undecodable);
    else facts.push(value.facts);
  }
  const previous = await loadContributions(client, [...new Map(facts.map((f) => [f.orderId, f])).values()]);
  await saveProjected(client, project(previous, facts));
  return [items.length];
}

export function statsSpec(codec: LogCodec, group: string = STATS_GROUP): CheckpointSpec<StatsValue, number> {
  return {
    group,
    topic: codec.topicName('orderEvents'),
    decode: async (record) => {
      try {
        if (!record.value) throw new Error('empty record');
        return { facts: factsOf((await codec.decodeOrderEvent(record.value)).order) };
      } catch (err) {
        return { undecodable: (err as Error).message };
      }
    },
    apply: projectRecords,
  };
}

export async function startStatsProjection(deps: StatsDeps): Promise<RunningConsumer> {
  return startCheckpointedConsumer({
    ...statsSpec(deps.codec, deps.groupId ?? STATS_GROUP),
    log: deps.log,
    pool: deps.pool,
    maxBatch: STATS_MAX_BATCH,
    afterCommit: (partition, counts) => deps.onProjected?.(partition, counts.reduce((a, b) => a + b, 0)),
  });
}
