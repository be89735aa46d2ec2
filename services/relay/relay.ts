/**
 * The outbox relay: publishes rows the processor committed, each partition's in id order, then moves that
 * partition's cursor past them (one small row per partition and batch, not an UPDATE of every row published:
 * migrations/1765500000001_outbox-cursors.sql says why a cursor per partition loses nothing). A crash between
 * the two publishes a row again with the same id (consumers dedup on it). One relay is active per deployment
 * (a PostgreSQL advisory lock), which keeps each account's messages in order.
 */
import type { Command } from '../domain/commands';
import type { DomainEvent } from '../domain/events';
import type { OrderEvent } from '../domain/order-events';
import { isConnectionError, type Pool, type PoolClient } from '../platform/db/pool';
import type { KafkaLog, OutgoingRecord } from '../platform/kafka';
import { crashPoint } from '../platform/chaos';
import { logger } from '../platform/logger';
import { eventsPublished, orderDeliverySeconds } from '../platform/metrics';
import { recordSpan } from '../platform/telemetry';
import { markProgress } from '../platform/liveness';
import { Waker } from '../platform/waker';
import { idleWaitAfter } from '../platform/polling-role';
import type { LogCodec } from '../platform/wire/codec';

const destinationTopics = { 'account-events': 'accountEvents', 'account-commands': 'accountCommands', 'order-events': 'orderEvents' } as const;
const LEADER_LOCK_KEY = 0x6f7574626f78; // "outbox"
/** Rows read per partition and poll (six partitions: up to 1,200 rows in one produce request). */
const PER_PARTITION = 200;
const IDLE_POLL_MS = 500;
const IDLE_POLL_MAX_MS = 4_000;

export interface RelayDeps {
  log: KafkaLog;
  codec: LogCodec;
  pool: Pool;
  onPublished?: (count: number) => void;
}

export interface RunningRelay {
  stop(): Promise<void>;
}

interface OutboxRow {
  id: bigint;
  /** The account-commands partition whose slice wrote the row; null: written before the cursors (published_at). */
  source_partition: number | null;
  destination: 'account-events' | 'account-commands' | 'order-events';
  payload: Record<string, unknown>;
  trace_context: Record<string, string> | null;
}

export async function startRelay(deps: RelayDeps): Promise<RunningRelay> {
  const waker = new Waker();
  // The LISTEN connection also holds the leader lock; when PostgreSQL restarts it breaks, and a new one
  // (listening again, leading only once it takes the lock again) replaces it.
  const listen = async () => {
    const client = await deps.pool.connect();
    client.on('notification', () => waker.wake());
    await client.query('LISTEN outbox');
    return client;
  };
  let listener: PoolClient | undefined = await listen();

  let leading = false;
  // Each empty read in a row doubles the idle wait, from IDLE_POLL_MS up to IDLE_POLL_MAX_MS. Every outbox row
  // comes with a NOTIFY (processor/store.ts saveOutbox) that wakes the loop at once; the idle poll only covers a lost one.
  let idleWaitMs = 0;
  const loop = (async () => {
    while (waker.running) {
      markProgress('relay');
      try {
        listener ??= await listen();
        if (!leading) {
          const { rows } = await listener.query('SELECT pg_try_advisory_lock($1) AS ok', [LEADER_LOCK_KEY]);
          leading = rows[0].ok as boolean;
        }
        if (!leading) {
          await waker.sleep(IDLE_POLL_MS * 4);
          continue;
        }
        const published = await publishOnce(deps, listener);
        idleWaitMs = published === 0 ? idleWaitAfter(idleWaitMs, IDLE_POLL_MS, IDLE_POLL_MAX_MS) : 0;
        if (published === 0) await waker.sleep(idleWaitMs);
      } catch (err) {
        logger.error({ err }, 'outbox relay failed; retrying');
        if (isConnectionError(err) && listener) {
          listener.release(err as Error);
          listener = undefined;
          leading = false;
        }
        await waker.sleep(1_000);
      }
    }
  })();

  return {
    stop: async () => {
      waker.stop();
      await loop;
      await listener?.query('SELECT pg_advisory_unlock_all()').catch(() => undefined);
      listener?.release();
    },
  };
}

/** The next batch: each partition's rows above its cursor (outbox_unpublished_rows), legacy rows after them. */
const UNPUBLISHED_READ = `SELECT id, source_partition, destination, payload, trace_context FROM outbox_unpublished_rows(${PER_PARTITION}) ORDER BY id`;

/**
 * After a batch is on the log: each partition's cursor to the last of its rows sent (never back: a relay that
 * lost the lead mid-batch may finish after the next one), and legacy rows marked one by one.
 */
const MARK_PUBLISHED = `WITH legacy AS (UPDATE outbox SET published_at = now() WHERE id = ANY($3::bigint[]))
  INSERT INTO outbox_cursors (source_partition, published_through) SELECT * FROM unnest($1::integer[], $2::bigint[])
  ON CONFLICT (source_partition) DO UPDATE SET published_through = GREATEST(outbox_cursors.published_through, EXCLUDED.published_through)`;

/**
 * Outbox rows not on the log yet (the view outbox_unpublished: above their partition's cursor, or legacy rows
 * not marked), of one destination or of all: the backlog the health gauge shows and the replay waits out.
 */
export async function unpublishedCount(db: Pick<Pool, 'query'>, destination?: OutboxRow['destination']): Promise<number> {
  const { rows } = destination === undefined
    ? await db.query('SELECT count(*)::int AS n FROM outbox_unpublished')
    : await db.query('SELECT count(*)::int AS n FROM outbox_unpublished WHERE destination = $1', [destination]);
  return rows[0].n as number;
}

/**
 * Publishes one batch of unpublished rows; returns how many. `client`: the relay's own connection (startRelay);
 * without it the statements go through the pool.
 */
export async function publishOnce(deps: RelayDeps, client?: PoolClient): Promise<number> {
  const db = client ?? deps.pool;
  const { rows } = await db.query<OutboxRow>(UNPUBLISHED_READ);
  if (rows.length === 0) return 0;
  const byTopic = new Map<string, OutgoingRecord[]>();
  for (const row of rows) {
    const encoded =
      row.destination === 'account-events' ? await deps.codec.encodeEvent(row.payload as unknown as DomainEvent)
        : row.destination === 'order-events' ? await deps.codec.encodeOrderEvent(row.payload as unknown as OrderEvent)
          : await deps.codec.encodeCommand(row.payload as unknown as Command);
    const topic = deps.codec.topicName(destinationTopics[row.destination]);
    const list = byTopic.get(topic) ?? [];
    list.push({ ...encoded, headers: row.trace_context ?? undefined });
    byTopic.set(topic, list);
  }
  crashPoint('relay.before-send');
  const sendStarted = Date.now();
  // One produce request for the whole batch, whatever topics it holds.
  await deps.log.sendTopics([...byTopic].map(([topic, records]) => ({ topic, records })));
  const sent = Date.now();
  for (const row of rows) recordSpan(`relay publish ${row.destination}`, row.trace_context, sendStarted, sent, { 'message.destination': row.destination });
  crashPoint('relay.after-send');
  const through = new Map<number, bigint>();
  const legacy: string[] = [];
  for (const row of rows) {
    if (row.source_partition === null) legacy.push(String(row.id));
    else if (row.id > (through.get(row.source_partition) ?? -1n)) through.set(row.source_partition, row.id);
  }
  await db.query(MARK_PUBLISHED, [[...through.keys()], [...through.values()].map(String), legacy]);
  deps.onPublished?.(rows.length);
  for (const row of rows) {
    const type = String((row.payload as { type?: unknown }).type ?? 'unknown');
    eventsPublished.inc({ destination: row.destination, type });
    if (row.destination === 'order-events' && type === 'order.active') {
      const seconds = deliverySeconds(row.payload);
      if (seconds !== null) orderDeliverySeconds.observe(seconds);
    }
  }
  return rows.length;
}

/** An order.active event's order: its creation (`order.created_at`) to the event (`occurredAt`), in seconds. */
export function deliverySeconds(payload: unknown): number | null {
  const event = payload as { occurredAt?: unknown; order?: { created_at?: unknown } };
  const created = typeof event.order?.created_at === 'string' ? Date.parse(event.order.created_at) : NaN;
  const at = Number(event.occurredAt);
  return Number.isFinite(created) && Number.isFinite(at) && at >= created ? (at - created) / 1000 : null;
}
