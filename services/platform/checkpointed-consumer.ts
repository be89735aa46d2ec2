/**
 * The one checkpointed consumer: every role that turns a topic into PostgreSQL rows exactly once (the
 * processor, the webhook dispatcher's intake, projections) uses it and supplies only `apply(items, tx)`.
 *
 * The protocol, per partition and per bounded slice of at most `maxBatch` records, in ONE transaction:
 *   1. lock the group's stored offset for the partition (consumer_offsets, created at 0; sent with BEGIN,
 *      `apply`'s reads behind it in the same round trip, on the assumption checked in 2 before anything of
 *      the apply counts: that the stored offset is the slice's first record; otherwise taken again from it);
 *   2. range check: when the slice does not contain the stored offset, nothing is applied and the
 *      consumer seeks to the stored offset (kafkajs has no rebalance listener; the stored offset wins);
 *   3. records that do not decode are written to undecodable_records and skipped;
 *   4. `apply` the decoded records at or after the stored offset, in the caller's transaction;
 *   5. compare-and-set advance of the stored offset past the slice, sent with the writes `apply` left in its
 *      `tail` group and the COMMIT: one round trip (the advance refuses itself when the offset moved).
 * After the commit, `afterCommit` (replies, wake-ups) runs with what `apply` returned.
 *
 * Poison isolation: when `apply` fails with an error that the same records would raise again (a data
 * error from PostgreSQL, a bug in pure code), the slice is bisected, each half in its own transaction,
 * until the one failing record is found; `refuse` records why it was not applied (in a transaction that
 * also moves the offset past it) and the rest goes on. Transient errors (connection lost, serialization)
 * are rethrown, so the whole batch is retried and nothing is refused for an outage.
 */
import pg from 'pg';
import { crashPoint } from './chaos';
import { WriteGroup, type Statement } from './db/bulk';
import { inTransaction, type Pool, type PoolClient } from './db/pool';
import type { ConsumedRecord, KafkaLog, RunningConsumer } from './kafka';
import { logger } from './logger';
import type { SliceTimings } from './slice-timing';

/** A record with its decoded value, or the reason it did not decode. */
export type Decoded<T> = { record: ConsumedRecord; value: T } | { record: ConsumedRecord; error: string };
export type Item<T> = { record: ConsumedRecord; value: T };

export interface CheckpointSpec<T, R> {
  /** Consumer group (without the deployment prefix) and the one topic it reads. */
  group: string;
  topic: string;
  /** Turns a record's bytes into a value; a throw marks the record undecodable. */
  decode(record: ConsumedRecord): Promise<T>;
  /**
   * Applies decoded records (in offset order, at or after the stored offset) in `tx`; returns what afterCommit
   * needs. Writes that nothing in `apply` reads back may go into `tail` instead (WriteGroup): they are sent in
   * one statement with the offset's advance, in the same transaction.
   */
  apply(items: Item<T>[], tx: PoolClient, tail: WriteGroup): Promise<R[]>;
  /** Records, in `tx` (or `tail`), that this one record was refused (`reason` names the error); default: log and skip it. */
  refuse?(item: Item<T>, reason: string, tx: PoolClient, tail: WriteGroup): Promise<R[]>;
  /** Crash points (platform/chaos.ts) just before the commit and just after it. */
  crashBeforeCommit?: string;
  crashAfterCommit?: string;
}

export interface ConsumerOptions<T, R> extends CheckpointSpec<T, R> {
  log: KafkaLog;
  pool: Pool;
  /** Most records applied in one transaction. */
  maxBatch: number;
  partitionsConcurrently?: number;
  /** Runs after each committed slice with what apply/refuse returned. Errors are logged, never retried. */
  afterCommit?(partition: number, results: R[]): Promise<void> | void;
  /** Where each slice's time went (platform/slice-timing.ts); the caller adds what follows the commit. */
  timings?: SliceTimings;
}

export type SliceOutcome<R> = { seekTo: bigint } | { results: R[]; last: bigint };

/**
 * Locks the partition's stored offset for the transaction (creating it at 0) and returns it: one statement with
 * literal values, so it goes with BEGIN in one simple query (no parameters).
 */
function lockStoredOffsetStatement(group: string, topic: string, partition: number): string {
  if (!Number.isSafeInteger(partition)) throw new Error(`bad partition ${partition}`);
  // The no-op update takes the row lock (as FOR UPDATE) and returns the stored offset, in one statement.
  return `INSERT INTO consumer_offsets (consumer_group, topic, partition, next_offset)
     VALUES (${pg.escapeLiteral(group)}, ${pg.escapeLiteral(topic)}, ${partition}, 0)
     ON CONFLICT (consumer_group, topic, partition) DO UPDATE SET next_offset = consumer_offsets.next_offset
     RETURNING next_offset`;
}

/** A group's stored offsets on a topic, per partition (the next record to apply); a partition never applied is absent. */
export async function storedOffsets(db: Pick<Pool, 'query'> | PoolClient, group: string, topic: string): Promise<Map<number, bigint>> {
  const { rows } = await db.query('SELECT partition, next_offset FROM consumer_offsets WHERE consumer_group = $1 AND topic = $2', [group, topic]);
  return new Map(rows.map((r) => [r.partition as number, BigInt(r.next_offset)]));
}

/** Compare-and-set: moves the offset only from the value this transaction read; a row returned when it did. */
function advanceStatement(group: string, topic: string, partition: number, expected: bigint, next: bigint): Statement {
  return {
    sql: `UPDATE consumer_offsets SET next_offset = $5, updated_at = now()
     WHERE consumer_group = $1 AND topic = $2 AND partition = $3 AND next_offset = $4 RETURNING 1`,
    params: [group, topic, partition, expected, next],
  };
}

export async function recordUndecodable(client: PoolClient, topic: string, partition: number, offset: bigint, error: string): Promise<void> {
  await client.query(
    'INSERT INTO undecodable_records (topic, partition, "offset", error) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING',
    [topic, partition, offset, error],
  );
}

export async function decodeAll<T>(decode: (r: ConsumedRecord) => Promise<T>, records: ConsumedRecord[]): Promise<Decoded<T>[]> {
  return Promise.all(
    records.map(async (record): Promise<Decoded<T>> => {
      try {
        if (!record.value) throw new Error('empty record');
        return { record, value: await decode(record) };
      } catch (err) {
        return { record, error: (err as Error).message };
      }
    }),
  );
}

/**
 * True when retrying the same records would fail the same way: PostgreSQL data exceptions (class 22,
 * e.g. a NUL byte in text) and integrity violations (class 23), and JavaScript errors thrown by pure code.
 * Connection, lock and resource errors are not: they are retried, never refused.
 */
export function isDeterministicFailure(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code.startsWith('22') || code.startsWith('23');
  return err instanceof TypeError || err instanceof RangeError || err instanceof SyntaxError;
}

type Where = { group: string; topic: string; partition: number };

/** The stored offset was not the slice's first record (a restart, a rebalance): the slice is taken again from it. */
class StoredOffsetElsewhere extends Error {}

/**
 * One transaction over `decoded` (one partition, offsets ascending). `until` is where the stored offset
 * moves on success (default: one past the last record).
 *
 * The stored offset is nearly always the slice's first record (the consumer fetched from it), so the slice is
 * applied on that assumption: its reads go out behind BEGIN and the offset's lock in the same round trip. When
 * the lock answers another offset, the transaction is rolled back before anything of it is decided (its result
 * and any failure of its apply set aside), and the slice is taken again with the lock's answer first.
 */
export async function applySlice<T, R>(
  pool: Pool, spec: CheckpointSpec<T, R>, partition: number, decoded: Decoded<T>[], until?: bigint, refuseReason?: string,
): Promise<SliceOutcome<R>> {
  if (refuseReason !== undefined) return applyInSlice(pool, spec, partition, decoded, until, true, refuseReason);
  try {
    return await applyInSlice(pool, spec, partition, decoded, until, false);
  } catch (err) {
    if (err instanceof StoredOffsetElsewhere) return applyInSlice(pool, spec, partition, decoded, until, true);
    throw err;
  }
}

/**
 * The slice's transaction. `lockFirst`: the stored offset is read before anything else (a seek, or the records
 * before it skipped); otherwise it is taken to be the first record and checked once the apply is done.
 */
async function applyInSlice<T, R>(
  pool: Pool, spec: CheckpointSpec<T, R>, partition: number, decoded: Decoded<T>[], until: bigint | undefined,
  lockFirst: boolean, refuseReason?: string,
): Promise<SliceOutcome<R>> {
  const where: Where = { group: spec.group, topic: spec.topic, partition };
  return inTransaction(pool, async (client, locked, commitWith): Promise<SliceOutcome<R>> => {
    const lockedOffset = async () => (await locked)[0].next_offset as bigint;
    const first = decoded[0].record.offset;
    const last = decoded[decoded.length - 1].record.offset;
    const stored = lockFirst ? await lockedOffset() : first;
    if (first > stored || last < stored) return { seekTo: stored };
    const fresh = decoded.filter((d) => d.record.offset >= stored);
    const tail = new WriteGroup();
    let results: R[] = [];
    let failure: { error: unknown } | null = null;
    try {
      for (const d of fresh) if ('error' in d) await recordUndecodable(client, where.topic, partition, d.record.offset, d.error);
      const items = fresh.filter((d): d is Item<T> => 'value' in d);
      if (refuseReason === undefined) results = await spec.apply(items, client, tail);
      else results = items.length === 0 ? [] : spec.refuse ? await spec.refuse(items[0], refuseReason, client, tail) : [];
    } catch (error) {
      failure = { error };
    }
    // Nothing of the apply counts (a result, or a failure to bisect over) until the lock confirms `stored`.
    if (!lockFirst && (await lockedOffset()) !== stored) throw new StoredOffsetElsewhere();
    if (failure) throw failure.error;
    if (spec.crashBeforeCommit) crashPoint(spec.crashBeforeCommit);
    // The tail and the offset's advance go with the COMMIT (one round trip); the advance refuses itself, and
    // the commit with it, when the stored offset is not the one this transaction locked.
    const advance = advanceStatement(where.group, where.topic, partition, stored, until ?? last + 1n);
    const moved = `stored offset of ${where.topic}[${partition}] moved under us (expected ${stored})`;
    commitWith(() => tail.send(client, advance, { count: 1, reason: moved }));
    return { results, last };
  }, lockStoredOffsetStatement(where.group, where.topic, where.partition));
}

/**
 * applySlice with poison isolation: on a deterministic failure, bisect until the failing record is found,
 * refuse it, and apply the rest. Returns on the first seek (the caller must re-read from there).
 */
export async function applyIsolated<T, R>(
  pool: Pool, spec: CheckpointSpec<T, R>, partition: number, decoded: Decoded<T>[], until?: bigint,
): Promise<SliceOutcome<R>> {
  try {
    return await applySlice(pool, spec, partition, decoded, until);
  } catch (err) {
    if (!isDeterministicFailure(err)) throw err;
    const reason = (err as Error).message;
    if (decoded.length === 1) {
      const code = (err as { code?: string }).code ?? null;
      logger.warn({ topic: spec.topic, partition, offset: String(decoded[0].record.offset), error: reason, code }, 'refusing a record that cannot be applied');
      return applySlice(pool, spec, partition, decoded, until, reason);
    }
    const mid = Math.ceil(decoded.length / 2);
    const head = await applyIsolated(pool, spec, partition, decoded.slice(0, mid), decoded[mid].record.offset);
    if ('seekTo' in head) return head;
    const tail = await applyIsolated(pool, spec, partition, decoded.slice(mid), until);
    if ('seekTo' in tail) return tail;
    return { results: [...head.results, ...tail.results], last: tail.last };
  }
}

/**
 * The spec with `apply` marking when it returned, per partition (slices of different partitions run at once):
 * the split between the transaction's work and its commit.
 */
function markingApplied<T, R>(spec: CheckpointSpec<T, R>, appliedAt: Map<number, number>): CheckpointSpec<T, R> {
  return {
    ...spec,
    apply: async (items, tx, tail) => {
      const results = await spec.apply(items, tx, tail);
      if (items.length > 0) appliedAt.set(items[0].record.partition, performance.now());
      return results;
    },
  };
}

/**
 * One committed slice's stages (performance.now() marks); `queued` from its oldest record's log timestamp to
 * the wall clock when the slice was taken up (`fetchedWall`), not to the commit: measured after the commit it
 * counted the slice's own decode, apply and commit twice.
 */
function recordSlice(
  timings: SliceTimings, slice: ConsumedRecord[],
  at: { fetchedAt: number; fetchedWall: number; decodedAt: number; appliedAt: number; committedAt: number; previousEnd: number | undefined },
): void {
  let oldest = Number.POSITIVE_INFINITY;
  for (const r of slice) oldest = Math.min(oldest, r.timestamp);
  timings.add('records', slice.length);
  timings.add('queued', Math.max(0, at.fetchedWall - oldest));
  if (at.previousEnd !== undefined) timings.add('gap', at.fetchedAt - at.previousEnd);
  timings.add('decode', at.decodedAt - at.fetchedAt);
  timings.add('apply', at.appliedAt - at.decodedAt);
  timings.add('commit', at.committedAt - at.appliedAt);
}

/** Runs the consumer group: bounded slices, each applied with applyIsolated, then afterCommit. */
export async function startCheckpointedConsumer<T, R>(options: ConsumerOptions<T, R>): Promise<RunningConsumer> {
  const { timings } = options;
  const appliedAt = new Map<number, number>();
  const endedAt = new Map<number, number>();
  const spec = timings ? markingApplied(options, appliedAt) : options;
  return options.log.runBatchConsumer({
    groupId: options.group,
    liveness: options.group,
    topics: [options.topic],
    partitionsConcurrently: options.partitionsConcurrently ?? 3,
    handler: async (batch, control) => {
      for (let start = 0; start < batch.records.length && control.stillOwned(); start += options.maxBatch) {
        const slice = batch.records.slice(start, start + options.maxBatch);
        const fetchedAt = performance.now();
        const fetchedWall = Date.now();
        const decoded = await decodeAll(options.decode, slice);
        const decodedAt = performance.now();
        appliedAt.delete(batch.partition);
        const outcome = await applyIsolated(options.pool, spec, batch.partition, decoded);
        if (timings && 'results' in outcome) {
          const committedAt = performance.now();
          recordSlice(timings, slice, { fetchedAt, fetchedWall, decodedAt, appliedAt: appliedAt.get(batch.partition) ?? committedAt, committedAt, previousEnd: endedAt.get(batch.partition) });
        }
        if ('seekTo' in outcome) {
          logger.info({ topic: options.topic, partition: batch.partition, offset: String(outcome.seekTo) }, 'seeking to the stored offset');
          control.seek(outcome.seekTo);
          return;
        }
        if (options.crashAfterCommit) crashPoint(options.crashAfterCommit);
        control.resolve(outcome.last);
        try {
          await options.afterCommit?.(batch.partition, outcome.results);
        } catch (err) {
          logger.warn({ err, topic: options.topic, partition: batch.partition }, 'after-commit step failed');
        }
        await control.heartbeat();
        if (timings) endedAt.set(batch.partition, performance.now());
      }
    },
  });
}
