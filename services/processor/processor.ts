/**
 * The ledger processor role: the checkpointed consumer (platform/checkpointed-consumer.ts) on
 * account-commands, supplying only how a batch of commands is applied and how a poison command is
 * refused. A batch and the partition's stored offset commit in one transaction, so a crash anywhere
 * re-applies nothing and loses nothing; answers go back to each API process on its one Redis channel.
 */
import type { Command } from '../domain/commands';
import type { ApplyContext } from '../domain/outcome';
import type { Clock } from '../platform/clock';
import type { WriteGroup } from '../platform/db/bulk';
import type { Pool, PoolClient } from '../platform/db/pool';
import { stringifyBigintJson } from '../platform/json';
import type { KafkaLog, RunningConsumer } from '../platform/kafka';
import {
  applyIsolated, decodeAll, startCheckpointedConsumer, type CheckpointSpec, type Decoded as DecodedRecord, type Item, type SliceOutcome,
} from '../platform/checkpointed-consumer';
import { logger } from '../platform/logger';
import { deliveryChannel, replyChannel, withRedis, type DeliveryNotice, type Redis } from '../platform/redis';
import { orderJson } from '../domain/orders/view';
import { registerReport, SliceTimings } from '../platform/slice-timing';
import { unstorableField } from '../identity/text-rules';
import type { LogCodec } from '../platform/wire/codec';
import { applyBatch, refuseUnprocessable, type AppliedCommand, type RefusalPolicy } from './apply-batch';
import { recordSpan } from '../platform/telemetry';

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

export type Decoded = DecodedRecord<Command>;

export async function decodeRecords(codec: LogCodec, records: Parameters<typeof decodeAll>[1]): Promise<Decoded[]> {
  return decodeAll((r) => codec.decodeCommand(r.value as Buffer), records);
}

/**
 * Past its deadline: refused. Text PostgreSQL cannot store (U+0000, a lone surrogate; refused at the edge,
 * but a log written before that, or a producer that skips the edge, may hold it): refused `unprocessable`
 * before its batch is tried, so a stream of them costs no failed transaction and no bisection. The marker
 * on the log makes a replay refuse it the same way.
 */
export function liveRefusalPolicy(clock: Clock): RefusalPolicy {
  return {
    refusalFor: (c) => {
      if (c.deadlineAt !== null && clock.now() > c.deadlineAt) return 'deadline_passed';
      return unstorableField(c) === null ? null : 'unprocessable';
    },
  };
}

/** Applies decoded commands in the caller's transaction (the processor and the replay share it). */
export function applyCommands(
  client: PoolClient, items: Item<Command>[], ctx: ApplyContext, policy: RefusalPolicy, tail?: WriteGroup,
): Promise<AppliedCommand[]> {
  const traces = new Map(items.flatMap((d) => (d.record.headers.traceparent ? [[d.value.commandId, d.record.headers]] : [])));
  const traceOf = (c: Command) => {
    const h = traces.get(c.commandId);
    return h ? { traceparent: h.traceparent, ...(h.tracestate ? { tracestate: h.tracestate } : {}) } : null;
  };
  const startedAt = Date.now();
  // Every item of a slice is of one partition (the checkpointed consumer's protocol).
  return applyBatch(client, items.map((d) => d.value), ctx, policy, traceOf, items[0]?.record.partition ?? 0, tail).then((applied) => {
    // Each traced command's span: from the slice's start to its results (the commit follows in the same round trip).
    if (traces.size > 0) {
      const endedAt = Date.now();
      for (const { command } of applied) recordSpan(`processor apply ${command.type}`, traceOf(command), startedAt, endedAt, { 'command.id': command.commandId, 'command.type': command.type });
    }
    return applied;
  });
}

/** The processor's part of the checkpointed-consumer protocol: apply, and refuse a poison command. */
export function processorSpec(codec: LogCodec, group: string, ctx: ApplyContext, policy: RefusalPolicy): CheckpointSpec<Command, AppliedCommand> {
  return {
    group,
    topic: codec.topicName('accountCommands'),
    decode: (r) => codec.decodeCommand(r.value as Buffer),
    // The outbox rows, the results and the relay's wake-up (saveOutbox: only when a row is written; a
    // batch.create publishes nothing, and woke the relay for an empty read) go with the offset's advance (one round trip).
    apply: (items, tx, tail) => applyCommands(tx, items, ctx, policy, tail),
    refuse: (item, _reason, tx, tail) => refuseUnprocessable(tx, item.value, item.record.partition, tail),
    crashBeforeCommit: 'processor.before-commit',
    crashAfterCommit: 'processor.after-commit',
  };
}

/**
 * One partition slice through the processor's protocol (with poison isolation); the replay calls this with
 * its own database and refusal policy, so it meets and refuses a poison command exactly as the live path.
 */
export function applyPartitionSlice(
  pool: Pool, spec: CheckpointSpec<Command, AppliedCommand>, partition: number, decoded: Decoded[],
): Promise<SliceOutcome<AppliedCommand>> {
  return applyIsolated(pool, spec, partition, decoded);
}

export async function startProcessor(deps: ProcessorDeps): Promise<RunningConsumer> {
  const spec = processorSpec(deps.codec, deps.groupId, deps.ctx, liveRefusalPolicy(deps.clock));
  // Where the slices' time goes, printed on demand (kill -USR2 <pid>; bench/orders.ts does, per step).
  const timings = new SliceTimings();
  const unregister = registerReport('processor', () => timings.report('processor'));
  // The answers of a committed slice go out while the next slice is fetched and applied (not on its path);
  // one publish round trip at a time, in commit order.
  let replying: Promise<void> = Promise.resolve();
  const consumer = await startCheckpointedConsumer({
    ...spec,
    log: deps.log,
    pool: deps.pool,
    maxBatch: deps.maxBatch,
    timings,
    afterCommit: (partition, applied) => {
      deps.onApplied?.(partition, applied.length);
      const committedAt = performance.now();
      replying = replying
        .then(() => sendReplies(deps, applied))
        .then((sent) => {
          if (sent > 0) timings.add('reply', performance.now() - committedAt);
        })
        .catch((err: unknown) => logger.warn({ err }, 'replies not published'));
    },
  });
  return {
    stop: async () => {
      unregister();
      await consumer.stop();
      await replying;
    },
  };
}

/**
 * Orders a slice applied as broadcast (order.allocations, body `delegated`), each with the answer a read
 * after the commit gives: a POST /v1/orders answer may be waiting for each (services/api/sync-delivery.ts),
 * in whichever API process placed it, and answers from the notice without reading the order back.
 */
function deliveredOrders(applied: AppliedCommand[]): DeliveryNotice[] {
  return applied.flatMap((a) => (a.broadcast ?? []).map((o) => ({ orderId: o.id, accountId: o.accountId, answer: orderJson(o) })));
}

/**
 * One pipelined round trip for all answers of a slice (and the orders it applied as broadcast); how many were sent. Best effort: a caller that misses
 * one reads PostgreSQL.
 */
async function sendReplies(deps: ProcessorDeps, applied: AppliedCommand[]): Promise<number> {
  const waiting = applied.filter((a) => a.command.replyTo);
  const delivered = deliveredOrders(applied);
  if (waiting.length === 0 && delivered.length === 0) return 0;
  // Without Redis the callers poll PostgreSQL for the answer (command-bus.ts): the batch goes on.
  const failed = await withRedis(deps.redis, async (redis) => {
    const pipeline = redis.pipeline();
    for (const a of waiting) pipeline.publish(replyChannel(deps.ctx.network, a.command.replyTo as string), stringifyBigintJson(a.result));
    if (delivered.length > 0) pipeline.publish(deliveryChannel(deps.ctx.network), stringifyBigintJson(delivered));
    const answers = (await pipeline.exec()) ?? [];
    return answers.filter(([err]) => err).length;
  }, () => waiting.length);
  if (failed > 0) logger.warn({ failed }, 'replies not published');
  return waiting.length;
}
