/**
 * The ledger processor role: a consumer group on account-commands. Per partition, a batch of commands is
 * applied in one PostgreSQL transaction together with the partition's stored offset (compare-and-set),
 * so a crash anywhere re-applies nothing and loses nothing. kafkajs has no rebalance listener, so the
 * stored offset is checked on every batch and the consumer seeks to it whenever the two disagree.
 */
import type { Command } from '../domain/commands';
import type { ApplyContext } from '../domain/outcome';
import type { Clock } from '../platform/clock';
import { inTransaction, type Pool } from '../platform/db/pool';
import { stringifyJson } from '../platform/json';
import type { ConsumedRecord, KafkaLog, RunningConsumer } from '../platform/kafka';
import { crashPoint } from '../platform/chaos';
import { logger } from '../platform/logger';
import { replyChannel, type Redis } from '../platform/redis';
import type { LogCodec } from '../platform/wire/codec';
import { applyBatch, type AppliedCommand, type RefusalPolicy } from './apply-batch';
import { advanceStoredOffset, lockStoredOffset, recordUndecodable } from './store';

export const PROCESSOR_GROUP = 'ledger-processor';

export interface ProcessorDeps {
  log: KafkaLog;
  codec: LogCodec;
  pool: Pool;
  redis: Redis;
  clock: Clock;
  ctx: ApplyContext;
  groupId: string;
  maxBatch: number;
  onApplied?: (partition: number, count: number) => void;
}

export type Decoded = { record: ConsumedRecord; command: Command } | { record: ConsumedRecord; error: string };

export async function decodeRecords(codec: LogCodec, records: ConsumedRecord[]): Promise<Decoded[]> {
  return Promise.all(
    records.map(async (record) => {
      try {
        if (!record.value) throw new Error('empty record');
        return { record, command: await codec.decodeCommand(record.value) };
      } catch (err) {
        return { record, error: (err as Error).message };
      }
    }),
  );
}

export function liveRefusalPolicy(clock: Clock): RefusalPolicy {
  return { refusalFor: (c) => (c.deadlineAt !== null && clock.now() > c.deadlineAt ? 'deadline_passed' : null) };
}

/**
 * Applies decoded records of one partition whose offsets start at or after `stored`, in the caller's
 * transaction, and returns what was applied. Shared by the live processor and the replay.
 */
export async function applyDecoded(
  client: Parameters<typeof applyBatch>[0],
  decoded: Decoded[],
  ctx: ApplyContext,
  policy: RefusalPolicy,
): Promise<AppliedCommand[]> {
  for (const d of decoded) {
    if ('error' in d) await recordUndecodable(client, d.record.topic, d.record.partition, d.record.offset, d.error);
  }
  const commands = decoded.flatMap((d) => ('command' in d ? [d.command] : []));
  const traces = new Map(decoded.flatMap((d) => ('command' in d && d.record.headers.traceparent ? [[d.command.commandId, d.record.headers]] : [])));
  return applyBatch(client, commands, ctx, policy, (c) => {
    const h = traces.get(c.commandId);
    return h ? { traceparent: h.traceparent, ...(h.tracestate ? { tracestate: h.tracestate } : {}) } : null;
  });
}

export type SliceOutcome = { seekTo: bigint } | { applied: AppliedCommand[]; last: bigint };

/**
 * One transaction: lock the partition's stored offset, apply the records at or after it, move the offset
 * past the last one (compare-and-set). When the consumer's position and the stored offset disagree,
 * nothing is applied and the caller seeks to the stored offset.
 */
export async function applyPartitionSlice(
  pool: Pool,
  where: { group: string; topic: string; partition: number },
  decoded: Decoded[],
  ctx: ApplyContext,
  policy: RefusalPolicy,
): Promise<SliceOutcome> {
  return inTransaction(pool, async (client): Promise<SliceOutcome> => {
    const stored = await lockStoredOffset(client, where.group, where.topic, where.partition);
    const first = decoded[0].record.offset;
    const last = decoded[decoded.length - 1].record.offset;
    if (first > stored || last < stored) return { seekTo: stored };
    const applied = await applyDecoded(client, decoded.filter((d) => d.record.offset >= stored), ctx, policy);
    await advanceStoredOffset(client, where.group, where.topic, where.partition, stored, last + 1n);
    await client.query('NOTIFY outbox');
    crashPoint('processor.before-commit');
    return { applied, last };
  });
}

export async function startProcessor(deps: ProcessorDeps): Promise<RunningConsumer> {
  const topic = deps.codec.topicName('accountCommands');
  const policy = liveRefusalPolicy(deps.clock);
  return deps.log.runBatchConsumer({
    groupId: deps.groupId,
    topics: [topic],
    partitionsConcurrently: 3,
    handler: async (batch, control) => {
      for (let start = 0; start < batch.records.length && control.stillOwned(); start += deps.maxBatch) {
        const slice = batch.records.slice(start, start + deps.maxBatch);
        const decoded = await decodeRecords(deps.codec, slice);
        const outcome = await applyPartitionSlice(deps.pool, { group: deps.groupId, topic, partition: batch.partition }, decoded, deps.ctx, policy);
        if ('seekTo' in outcome) {
          logger.info({ topic, partition: batch.partition, offset: String(outcome.seekTo) }, 'seeking to the stored offset');
          control.seek(outcome.seekTo);
          return;
        }
        crashPoint('processor.after-commit');
        control.resolve(outcome.last);
        deps.onApplied?.(batch.partition, outcome.applied.length);
        await sendReplies(deps, outcome.applied);
        await control.heartbeat();
      }
    },
  });
}

async function sendReplies(deps: ProcessorDeps, applied: AppliedCommand[]): Promise<void> {
  // Best effort: a caller that misses this reads the committed result from PostgreSQL.
  await Promise.all(
    applied
      .filter((a) => a.command.replyTo)
      .map((a) =>
        deps.redis
          .publish(replyChannel(deps.ctx.network, a.command.replyTo as string), stringifyJson(a.result))
          .catch((err) => logger.warn({ err, commandId: a.command.commandId }, 'reply not published')),
      ),
  );
}
