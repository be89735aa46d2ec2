/**
 * `ops replay --verify`: rebuilds every table from account-commands into an empty database and compares
 * it with the live one. The live side is read in one REPEATABLE READ snapshot, and the log is replayed up
 * to exactly the offsets stored in that snapshot, so the comparison holds even while traffic flows.
 */
import type { Progress as Meter } from '../platform/progress';
import type { RefusalReason } from '../domain/commands';
import { dropDatabase, ensureDatabase } from '../platform/db/databases';
import { migrate } from '../platform/db/migrate';
import { createPool, type Pool, type PoolClient } from '../platform/db/pool';
import type { Runtime } from '../chain/clients';
import { storedOffsets } from '../platform/checkpointed-consumer';
import { applyPartitionSlice, decodeRecords, processorSpec, PROCESSOR_GROUP } from '../processor/processor';
import type { RefusalPolicy } from '../processor/apply-batch';
import { replayedTables, type ReplayedTable } from './replayed-tables';
import { unpublishedCount } from '../relay/relay';

export interface ReplayReport {
  records: number;
  tables: Array<{ table: string; live: number; replayed: number; differences: string[] }>;
  identical: boolean;
  database: string;
}

type Progress = (line: string) => void;

export interface ReplayOptions {
  keep?: boolean;
  progress?: Progress;
  /** Counts of the two long phases (records replayed, tables compared) for a person watching (platform/progress.ts). */
  meter?: Meter;
  /**
   * How the replay database is made (absent, or left over from an earlier replay: empty and migrated) and
   * dropped afterwards. By default it is dropped, created and migrated, and dropped; test worlds copy it from
   * their migrated template and leave the drop to the end of the run instead (test/support/world.ts).
   */
  replayDatabase?: { prepare(url: string): Promise<void>; drop(url: string): Promise<void> };
}

export async function replayAndVerify(rt: Runtime, options: ReplayOptions = {}): Promise<ReplayReport> {
  const progress = options.progress ?? (() => undefined);
  const topic = rt.codec.topicName('accountCommands');
  const live = await rt.pool.connect();
  const replayUrl = replayDatabaseUrl(rt.cfg.DATABASE_URL);
  const database = decodeURIComponent(new URL(replayUrl).pathname.slice(1));
  let replayPool: Pool | undefined;
  try {
    await live.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const targets = await storedOffsets(live, PROCESSOR_GROUP, topic);
    const total = [...targets.values()].reduce((a, b) => a + b, 0n);
    progress(`live snapshot taken: ${total} records applied across ${targets.size} partitions`);

    await waitForMarkers(rt.pool, progress);
    await (options.replayDatabase?.prepare ?? recreateAndMigrate)(replayUrl);
    replayPool = createPool(replayUrl, 4);

    const refused = await collectRefusals(rt, topic, progress);
    const policy: RefusalPolicy = { refusalFor: (c) => refused.get(c.commandId) ?? null };
    let done = 0n;
    let lastReport = 0;
    options.meter?.start('replayed records', Number(total));
    const ctx = { network: rt.cfg.NETWORK, brand: rt.cfg.BRAND };
    const spec = processorSpec(rt.codec, PROCESSOR_GROUP, ctx, policy);
    await rt.log.scan(topic, targets, async (batch, heartbeat) => {
      const decoded = await decodeRecords(rt.codec, batch.records);
      const outcome = await applyPartitionSlice(replayPool as Pool, spec, batch.partition, decoded);
      if ('seekTo' in outcome) throw new Error(`replay out of order on partition ${batch.partition}: expected offset ${outcome.seekTo}, got ${batch.records[0].offset}`);
      await heartbeat();
      done += BigInt(batch.records.length);
      options.meter?.advance(batch.records.length);
      if (!options.meter && (Date.now() - lastReport > 1_000 || done === total)) {
        lastReport = Date.now();
        progress(`replayed ${done}/${total} records`);
      }
    });

    options.meter?.finish();
    const tables = [];
    options.meter?.start('compared tables', replayedTables.length);
    for (const t of replayedTables) {
      tables.push(await compareTable(live, replayPool, t));
      options.meter?.advance();
    }
    options.meter?.finish();
    await live.query('COMMIT');
    return { records: Number(done), tables, identical: tables.every((t) => t.differences.length === 0), database };
  } finally {
    live.release();
    await replayPool?.end();
    if (!options.keep) await (options.replayDatabase?.drop ?? dropDatabase)(replayUrl).catch(() => undefined);
  }
}

/** Refusal markers travel through the outbox; wait until the relay has put them on the log. */
async function waitForMarkers(pool: Pool, progress: Progress): Promise<void> {
  for (let i = 0; i < 600; i++) {
    const markers = await unpublishedCount(pool, 'account-commands');
    if (markers === 0) return;
    if (i % 10 === 0) progress(`waiting for the relay to publish ${markers} refusal markers`);
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('refusal markers were not published within 60 s; is the relay running?');
}

export async function collectRefusals(rt: Runtime, topic: string, progress: Progress): Promise<Map<string, RefusalReason>> {
  const refused = new Map<string, RefusalReason>();
  await rt.log.scan(topic, await rt.log.endOffsets(topic), async (batch) => {
    for (const d of await decodeRecords(rt.codec, batch.records)) {
      if ('value' in d && d.value.type === 'command.refused') refused.set(d.value.refusedCommandId, d.value.reason);
    }
  });
  progress(`found ${refused.size} refused commands on the log`);
  return refused;
}

async function rowDigests(db: PoolClient | Pool, t: ReplayedTable): Promise<Map<string, string>> {
  const drop = t.volatile.map((c) => ` - '${c}'`).join('');
  const key = t.key.map((k) => `"${k}"::text`).join(` || '|' || `);
  const { rows } = await db.query(
    `SELECT ${key} AS k, md5((to_jsonb(x)${drop})::text) AS h FROM ${t.table} x ${t.where ? `WHERE ${t.where}` : ''}`,
  );
  return new Map(rows.map((r) => [r.k as string, r.h as string]));
}

export async function compareTable(live: PoolClient, replay: Pool, t: ReplayedTable) {
  const [a, b] = await Promise.all([rowDigests(live, t), rowDigests(replay, t)]);
  const differences: string[] = [];
  for (const [k, h] of a) {
    if (!b.has(k)) differences.push(`${k}: only live`);
    else if (b.get(k) !== h) differences.push(`${k}: differs`);
  }
  for (const k of b.keys()) if (!a.has(k)) differences.push(`${k}: only replayed`);
  return { table: t.table, live: a.size, replayed: b.size, differences };
}

function replayDatabaseUrl(liveUrl: string): string {
  const url = new URL(liveUrl);
  url.pathname = `${url.pathname}_replay`;
  return url.toString();
}

async function recreateAndMigrate(url: string): Promise<void> {
  await dropDatabase(url);
  await ensureDatabase(url);
  await migrate(url);
}
