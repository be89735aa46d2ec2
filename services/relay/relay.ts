/**
 * The outbox relay: publishes rows the processor committed, in id order, then marks them published.
 * A crash between the two publishes a row again with the same id (consumers dedup on it). One relay is
 * active per deployment (a PostgreSQL advisory lock), which keeps each account's messages in order.
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
const BATCH = 500;
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
    // The batch read (publishOnce) runs on this connection as a plain index scan: see UNPUBLISHED_READ.
    await client.query(`SET enable_bitmapscan = off; LISTEN outbox`);
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
      await listener?.query('RESET enable_bitmapscan; SELECT pg_advisory_unlock_all()').catch(() => undefined);
      listener?.release();
    },
  };
}

/**
 * The next batch, through the partial index outbox_unpublished. Every published row leaves a dead entry in that
 * index until VACUUM (setting published_at is not a HOT update: the index's predicate names the column). A bitmap
 * scan, PostgreSQL's choice on its estimates, visits the heap page of every such entry on every poll and never
 * marks one dead, so a poll grows dearer with every row published until VACUUM. A plain index scan, on a session
 * with bitmap scans off, marks each entry dead (LP_DEAD) the first time it finds its row gone for everyone, and
 * later scans skip those without the heap (figures of both in bench/README.md, "Processor column arrays again,
 * relay read as a plain index scan"). Rows and their order are the same either way.
 */
const UNPUBLISHED_READ = `SELECT id, destination, payload, trace_context FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT ${BATCH}`;

/**
 * Publishes one batch of unpublished rows; returns how many. `client`: the relay's own connection, with bitmap
 * scans off (startRelay); without it the read goes through the pool with PostgreSQL's plan.
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
  await db.query('UPDATE outbox SET published_at = now() WHERE id = ANY($1::bigint[])', [rows.map((r) => r.id)]);
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
