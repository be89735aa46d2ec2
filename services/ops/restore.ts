/**
 * `ops restore --into <database>`: rebuilds every table that is on the log from the topics alone into a
 * new database, shows progress, stamps it with the log it was built from, and returns the DATABASE_URL to
 * start the service on. The live database is not read (it may be gone). Commands are applied by the
 * processor's own code (applyPartitionSlice), with the refusals the log records, exactly as
 * `replay --verify` does; the processor's stored offsets end where the restore stopped, and the first
 * processor started on the new database applies what was appended since in the same way up to the log end
 * at its start (catchUpAfterRestore), then goes on live.
 */
import { progressText } from '../platform/progress';
import pg from 'pg';
import type { Config } from '../platform/config';
import { databaseName, checkOrStamp } from '../platform/log-identity';
import type { Pool } from '../platform/db/pool';
import { dropDatabase } from '../platform/db/databases';
import { createRuntime, currentLogIdentity } from '../runtime';
import { type Runtime } from '../chain/clients';
import { storedOffsets } from '../platform/checkpointed-consumer';
import { applyPartitionSlice, decodeRecords, processorSpec, PROCESSOR_GROUP } from '../processor/processor';
import type { RefusalPolicy } from '../processor/apply-batch';
import { collectRefusals } from './replay';
import { rotateEncryptionKeys } from './rotate-encryption-key';
import { replayedTables } from './replayed-tables';
import { DISPATCHER_GROUP } from '../dispatcher/dispatcher';
import { RedeliveryHorizon, REDELIVERY_WINDOW_MS } from './redelivery-horizon';
import { unpublishedCount } from '../relay/relay';

export interface RestoreReport {
  database: string;
  databaseUrl: string;
  records: number;
  seconds: number;
  tables: Array<{ table: string; rows: number }>;
  /** Outbox rows whose message is not on the log yet: the relay publishes them once the service starts. */
  unpublished: number;
  /** Events on account-events the webhook dispatcher delivers again (the last redelivery window; receivers dedupe on event_id). */
  redelivered: number;
}

type Progress = (line: string) => void;

const DATABASE_NAME = /^[a-z_][a-z0-9_]{0,62}$/;
const SLICE = 500;

export function restoreDatabaseUrl(liveUrl: string, database: string): string {
  if (!DATABASE_NAME.test(database)) throw new Error(`--into ${database}: a database name is lower-case letters, digits and _ (at most 63)`);
  const url = new URL(liveUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

async function databaseExists(url: string): Promise<boolean> {
  const server = new URL(url);
  server.pathname = '/postgres';
  const client = new pg.Client({ connectionString: server.toString() });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [databaseName(url)]);
    return rowCount !== 0;
  } finally {
    await client.end();
  }
}

export async function restoreInto(cfg: Config, database: string, progress: Progress = () => undefined): Promise<RestoreReport> {
  const databaseUrl = restoreDatabaseUrl(cfg.DATABASE_URL, database);
  if (await databaseExists(databaseUrl)) {
    throw new Error(`database ${database} exists already; restore builds a new one (choose another name, or drop it first)`);
  }
  const started = Date.now();
  // The new database is stamped at the end, once it holds the whole log (a half-built one stays unstamped).
  let rt: Runtime;
  try {
    rt = await createRuntime(cfg, { databaseUrl, logIdentity: 'skip' });
  } catch (err) {
    await dropDatabase(databaseUrl).catch(() => undefined);
    throw err;
  }
  let finished = false;
  try {
    const topic = rt.codec.topicName('accountCommands');
    const { records, commandIds } = await applyLog(rt, progress, await rt.log.endOffsets(topic), new Map());
    const horizon = new RedeliveryHorizon(REDELIVERY_WINDOW_MS / rt.cfg.CLOCK_SCALE);
    const { unpublished, eventsEnd } = await markOnLog(rt, commandIds, progress, horizon);
    const redelivered = await positionDispatcher(rt, horizon, eventsEnd, progress);
    // What is appended after this point was decided by the lost database's processor: the first processor
    // started here applies it as the log says, up to the log end at its start (catchUpAfterRestore).
    await rt.pool.query('INSERT INTO restore_catch_up (until_offsets) VALUES (NULL)');
    // Secrets on the log are sealed under the key in force when they were issued: re-seal them under the
    // current keys (opening with the *_PREVIOUS keys as needed), as `ops rotate-encryption-key` would.
    for (const r of await rotateEncryptionKeys(rt.pool, cfg)) {
      progress(`${r.table}: re-sealed ${r.resealed}, already current ${r.current}, unreadable ${r.unreadable.length}`);
      if (r.unreadable.length > 0) throw new Error(`${r.table}: ${r.unreadable.length} secrets open with no configured key; set the *_PREVIOUS key they were sealed with, drop the new database and restore again`);
    }
    await checkOrStamp(rt.pool, await currentLogIdentity(cfg), databaseUrl);
    const tables = [];
    for (const t of replayedTables) {
      const { rows } = await rt.pool.query(`SELECT count(*)::int AS n FROM ${t.table}`);
      tables.push({ table: t.table, rows: rows[0].n as number });
    }
    finished = true;
    return { database, databaseUrl, records, seconds: (Date.now() - started) / 1000, tables, unpublished, redelivered };
  } finally {
    await rt.close();
    // A half-built database is of no use and would block the next attempt: this run created it, so drop it.
    if (!finished) await dropDatabase(databaseUrl).catch(() => undefined);
  }
}

/**
 * Applies account-commands from `from` (the processor's stored offsets; absent: 0) up to `until`, refusing
 * exactly the commands with a marker on the log (read up to the log's end now). Returns how many records were
 * applied and every command id on the log up to `until` (the outbox rows to mark published).
 */
async function applyLog(rt: Runtime, progress: Progress, until: Map<number, bigint>, from: Map<number, bigint>): Promise<{ records: number; commandIds: string[] }> {
  const topic = rt.codec.topicName('accountCommands');
  const total = [...until].reduce((a, [p, end]) => a + (end > (from.get(p) ?? 0n) ? end - (from.get(p) ?? 0n) : 0n), 0n);
  progress(`restoring ${total} records of ${topic} across ${until.size} partitions`);
  const refused = await collectRefusals(rt, topic, progress);
  const policy: RefusalPolicy = { refusalFor: (c) => refused.get(c.commandId) ?? null };
  const ctx = { network: rt.cfg.NETWORK, brand: rt.cfg.BRAND };
  const spec = processorSpec(rt.codec, PROCESSOR_GROUP, ctx, policy);
  const started = Date.now();
  let done = 0n;
  let lastReport = 0;
  const commandIds: string[] = [];
  // scan hands each record once in order, also when its group re-joins (a long batch on a busy machine).
  await rt.log.scan(topic, until, async (batch, heartbeat) => {
    const start = from.get(batch.partition) ?? 0n;
    // One transaction per slice of at most SLICE records (as the processor's max batch), heartbeat between.
    for (let i = 0; i < batch.records.length; i += SLICE) {
      const decoded = await decodeRecords(rt.codec, batch.records.slice(i, i + SLICE));
      for (const d of decoded) if ('value' in d) commandIds.push(d.value.commandId);
      const fresh = decoded.filter((d) => d.record.offset >= start);
      if (fresh.length === 0) continue;
      const outcome = await applyPartitionSlice(rt.pool as Pool, spec, batch.partition, fresh);
      // Stored offset past this slice: another processor's catch-up applied it (same policy, same result).
      const last = fresh[fresh.length - 1].record.offset;
      if ('seekTo' in outcome && outcome.seekTo <= last) throw new Error(`restore out of order on partition ${batch.partition}: expected offset ${outcome.seekTo}, got ${fresh[0].record.offset}`);
      done += BigInt(fresh.length);
      await heartbeat();
    }
    if (Date.now() - lastReport > 1_000 || done === total) {
      lastReport = Date.now();
      progress(progressText({ label: 'applied', unit: 'records', done: Number(done), total: Number(total), elapsedMs: Date.now() - started }));
    }
  });
  return { records: Number(done), commandIds };
}

/**
 * The rebuilt outbox holds every event and follow-up command ever written. Those already on the log are
 * marked published (the relay must not send history again); the others were committed by the lost
 * database but never relayed, and stay for the relay. Returns how many stay. While account-events is read,
 * the webhook dispatcher's `horizon` is fed (positionDispatcher).
 */
async function markOnLog(rt: Runtime, commandIds: string[], progress: Progress, horizon?: RedeliveryHorizon): Promise<{ unpublished: number; eventsEnd: Map<number, bigint> }> {
  // Follow-up commands and refusal markers on the log were read by applyLog; events are read here.
  const onLog = [...commandIds];
  const events = rt.codec.topicName('accountEvents');
  const eventsEnd = await rt.log.endOffsets(events);
  await rt.log.scan(events, eventsEnd, async (batch) => {
    for (const r of batch.records) {
      horizon?.see(batch.partition, r.offset, r.timestamp);
      if (r.value) onLog.push((await rt.codec.decodeEvent(r.value)).eventId);
    }
  });
  const orderEvents = rt.codec.topicName('orderEvents');
  await rt.log.scan(orderEvents, await rt.log.endOffsets(orderEvents), async (batch) => {
    for (const r of batch.records) if (r.value) onLog.push((await rt.codec.decodeOrderEvent(r.value)).eventId);
  });
  for (let i = 0; i < onLog.length; i += 10_000) {
    await rt.pool.query('UPDATE outbox SET published_at = now() WHERE message_id = ANY($1::text[]) AND published_at IS NULL', [onLog.slice(i, i + 10_000)]);
  }
  const unpublished = await unpublishedCount(rt.pool);
  progress(`outbox: ${onLog.length} messages found on the log, ${unpublished} left for the relay`);
  return { unpublished, eventsEnd };
}

/**
 * The webhook dispatcher's position (services/ops/redelivery-horizon.ts): one redelivery window before the
 * end of account-events, fed by markOnLog's read of it. The stats projection has no stored position and
 * rebuilds itself from order-events into its empty tables, as `ops rebuild-stats` would.
 */
async function positionDispatcher(rt: Runtime, horizon: RedeliveryHorizon, eventsEnd: Map<number, bigint>, progress: Progress): Promise<number> {
  const events = rt.codec.topicName('accountEvents');
  const redelivered = await storeDispatcherStart(rt, events, horizon.startOffsets(eventsEnd), eventsEnd);
  progress(`webhook dispatcher: resumes ${redelivered} events before the end of ${events} (the last ${Math.round(REDELIVERY_WINDOW_MS / 3_600_000)} h of the log are delivered again, same event ids)`);
  return redelivered;
}

async function storeDispatcherStart(rt: Runtime, topic: string, start: Map<number, bigint>, end: Map<number, bigint>): Promise<number> {
  let redelivered = 0n;
  for (const [partition, offset] of start) {
    await rt.pool.query(
      'INSERT INTO consumer_offsets (consumer_group, topic, partition, next_offset) VALUES ($1, $2, $3, $4)',
      [DISPATCHER_GROUP, topic, partition, offset],
    );
    redelivered += (end.get(partition) ?? offset) - offset;
  }
  return Number(redelivered);
}

/**
 * Run by the processor role before its live consumer. On a database `ops restore` built (a restore_catch_up
 * row), the records appended to account-commands after the restore's end were decided by the lost database's
 * processor, whose callers got their answers: they are applied with the restore's policy (refused iff a
 * `command.refused` marker is on the log, read up to its end now), not by the live deadline rule, which would
 * refuse a command applied long ago because it is reached after its deadline. The end of the log at the first
 * such start is stored in the row, so a catch-up that crashed goes on to the same end (the slices commit with
 * their offsets, as the live processor's); the row is deleted once caught up. Without a row nothing happens.
 * Returns the records applied, or null on a normal database.
 */
export async function catchUpAfterRestore(rt: Runtime, progress: Progress): Promise<number | null> {
  const read = async () => (await rt.pool.query('SELECT until_offsets FROM restore_catch_up')).rows[0] as { until_offsets: Record<string, string> | null } | undefined;
  let row = await read();
  if (!row) return null;
  const topic = rt.codec.topicName('accountCommands');
  if (row.until_offsets === null) {
    const end = await rt.log.endOffsets(topic);
    await rt.pool.query('UPDATE restore_catch_up SET until_offsets = $1 WHERE until_offsets IS NULL', [JSON.stringify(Object.fromEntries([...end].map(([p, o]) => [p, String(o)])))]);
    row = await read();
    if (!row?.until_offsets) return null;
  }
  const until = new Map(Object.entries(row.until_offsets).map(([p, o]) => [Number(p), BigInt(o)]));
  const from = await storedOffsets(rt.pool, PROCESSOR_GROUP, topic);
  const { records, commandIds } = await applyLog(rt, progress, until, from);
  // What the catch-up wrote to the outbox is on the log already (the lost database's relay sent it).
  await markOnLog(rt, commandIds, progress);
  await rt.pool.query('DELETE FROM restore_catch_up');
  return records;
}
