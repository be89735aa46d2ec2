/**
 * Batch rows: the processor's BatchState (loads what a batch's batch commands touch, serves it to the pure
 * handlers with the batch's own changes on top, writes the changes back), and the reads of the API and
 * the executor. Only the processor writes the table.
 */
import type { Command } from '../domain/commands';
import type { Order } from '../domain/orders/rules';
import type { BatchView } from '../domain/outcome';
import type { WriteGroup } from '../platform/db/bulk';
import type { Pool, PoolClient } from '../platform/db/pool';
import { parseOwnJson, stringifyJson } from '../platform/json';
import { KeyedRows } from '../processor/keyed-rows';
import { orderColumns, orderFromRow } from '../processor/order-store';
import { batchCommandTypes } from '../domain/batches/commands';
import { itemFromStored, storedForm, type Batch } from '../domain/batches/rules';

type Queryable = Pick<Pool, 'query'>;

/** Every column, the items as text (see batchFromRow). */
const SELECT = `SELECT id, account_id, batch_key, client_batch_id, request_hash, items::text AS items_text, created_at, finished_at, final_status, charged_sun`;

const columns = ['id', 'account_id', 'batch_key', 'client_batch_id', 'request_hash', 'items', 'created_at', 'finished_at', 'final_status', 'charged_sun'] as const;

export function batchFromRow(r: Record<string, any>): Batch {
  // items_text: the jsonb as text, parsed once here with int64 kept exact (pg's own parse would round them).
  const items = (parseOwnJson(r.items_text) as Array<Record<string, any>>).map(itemFromStored);
  return {
    id: r.id, accountId: r.account_id, batchKey: r.batch_key, clientBatchId: r.client_batch_id, requestHash: r.request_hash, items,
    createdAt: r.created_at.getTime(), finishedAt: r.finished_at === null ? null : r.finished_at.getTime(), finalStatus: r.final_status,
    chargedSun: r.charged_sun === null ? null : BigInt(r.charged_sun),
  };
}

const batchToRow = (b: Batch): unknown[] => [
  b.id, b.accountId, b.batchKey, b.clientBatchId, b.requestHash, stringifyJson(b.items.map(storedForm)), new Date(b.createdAt),
  b.finishedAt === null ? null : new Date(b.finishedAt), b.finalStatus, b.chargedSun,
];

export class BatchState implements BatchView {
  private readonly batches = new KeyedRows<Batch>((b) => b.id);

  static async load(client: PoolClient, commands: Command[]): Promise<BatchState> {
    const state = new BatchState();
    const work = commands.filter((c) => batchCommandTypes.has(c.type));
    if (work.length === 0) return state;
    const ids = work.flatMap((c) => ('batchId' in c && typeof c.batchId === 'string' ? [c.batchId] : []));
    const keyAccounts: string[] = [];
    const keys: string[] = [];
    for (const c of work) if (c.type === 'batch.create') (keyAccounts.push(c.accountId), keys.push(c.batchKey));
    const { rows } = await client.query(
      `${SELECT} FROM batches WHERE id = ANY($1::text[])
       UNION ${SELECT} FROM batches WHERE (account_id, batch_key) IN (SELECT * FROM unnest($2::text[], $3::text[]))`,
      [ids, keyAccounts, keys],
    );
    for (const r of rows) state.batches.load(batchFromRow(r));
    return state;
  }

  byId(batchId: string): Batch | undefined {
    return this.batches.get(batchId);
  }

  byKey(accountId: string, batchKey: string): Batch | undefined {
    for (const b of this.batches.values()) if (b.accountId === accountId && b.batchKey === batchKey) return b;
    return undefined;
  }

  put(batch: Batch): void {
    this.batches.put(batch);
  }

  /**
   * Into the processor's last write group (the results and the outbox, one statement with the consumer's
   * checkpoint): nothing in the apply reads the rows back, and the row is never a foreign key's target.
   * Its own statement before: one round trip more per batch command.
   */
  save(group: WriteGroup): void {
    group.upsertRows('batches', columns, this.batches.changed().map(batchToRow), { key: 'id', keep: ['created_at'] });
  }
}

/** `bat_` id or `cid:<client_batch_id>`, the caller's own only. */
export async function batchByRef(db: Queryable, accountId: string, ref: string): Promise<Batch | undefined> {
  const { rows } = ref.startsWith('cid:')
    ? await db.query(`${SELECT} FROM batches WHERE account_id = $1 AND client_batch_id = $2`, [accountId, ref.slice(4)])
    : await db.query(`${SELECT} FROM batches WHERE account_id = $1 AND id = $2`, [accountId, ref]);
  return rows[0] ? batchFromRow(rows[0]) : undefined;
}

export interface BatchCursor {
  createdAt: Date;
  id: string;
}

/**
 * Newest first. With `status`, only batches that can have it: a finished batch's status is stored, an
 * open one's is derived from its orders by the caller (so open batches are all returned here).
 */
export async function listBatches(db: Queryable, accountId: string, limit: number, after?: BatchCursor, status?: string): Promise<Batch[]> {
  const where = ['account_id = $1'];
  const params: unknown[] = [accountId];
  if (after) {
    params.push(after.createdAt, after.id);
    where.push(`(created_at, id) < ($${params.length - 1}, $${params.length})`);
  }
  if (status === 'queued' || status === 'processing') where.push('finished_at IS NULL');
  else if (status !== undefined) {
    params.push(status);
    where.push(`(finished_at IS NULL OR final_status = $${params.length})`);
  }
  params.push(limit);
  const { rows } = await db.query(`${SELECT} FROM batches WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT $${params.length}`, params);
  return rows.map(batchFromRow);
}

/** The orders the given batches produced (chunks and top-ups), by id. */
export async function ordersOfBatches(db: Queryable, batches: Batch[]): Promise<Map<string, Order>> {
  const ids = batches.flatMap((b) => b.items.flatMap((i) => (i.bandwidthOrderId ? [...i.orderIds, i.bandwidthOrderId] : i.orderIds)));
  const out = new Map<string, Order>();
  if (ids.length === 0) return out;
  const { rows } = await db.query(`SELECT ${orderColumns.join(', ')} FROM orders WHERE id = ANY($1::text[])`, [ids]);
  for (const r of rows) out.set(r.id, orderFromRow(r));
  return out;
}

/** A receiver the executor still has to start or finish. */
const hasWork = (b: Batch): boolean => b.items.some((i) => i.progress === 'queued' || i.progress === 'started');

/** No order of the batch awaiting delivery (orders_batch index). */
const SETTLED = `NOT EXISTS (SELECT 1 FROM orders o WHERE o.batch_id = batches.id AND o.status IN ('created', 'paid', 'allocating', 'delegated'))`;

/**
 * The open batches the executor read, kept with their row version (PostgreSQL's xmin: every update of a
 * row writes a new one), so a pass fetches and parses only the rows that changed since the last: a batch's
 * row changes once per start or done wave, while the executor looks every CHAIN_POLL_MS (50 open batches of
 * 100 receivers are 2 MB of JSON, before read in full and parsed every pass). Bounded: trimmed to the list.
 */
export class OpenBatchesCache {
  readonly rows = new Map<string, { version: string; batch: Batch }>();
}

/**
 * Open batches, oldest first: their ids and row versions, then the full rows of those new or changed
 * (read again with `finished_at IS NULL`: one finished between the two reads is left out, as a one-query
 * read would have).
 */
export async function readOpenBatches(db: Queryable, cache: OpenBatchesCache, limit: number): Promise<Batch[]> {
  const { rows } = await db.query('SELECT id, xmin::text AS version FROM batches WHERE finished_at IS NULL ORDER BY created_at, id LIMIT $1', [limit]);
  const listed = rows as Array<{ id: string; version: string }>;
  const ids = new Set(listed.map((r) => r.id));
  for (const id of cache.rows.keys()) if (!ids.has(id)) cache.rows.delete(id);
  const changed = listed.filter((r) => cache.rows.get(r.id)?.version !== r.version).map((r) => r.id);
  const fresh = new Set<string>();
  if (changed.length > 0) {
    const full = await db.query(`${SELECT}, xmin::text AS row_version FROM batches WHERE id = ANY($1::text[]) AND finished_at IS NULL`, [changed]);
    for (const r of full.rows) {
      cache.rows.set(r.id, { version: r.row_version, batch: batchFromRow(r) });
      fresh.add(r.id);
    }
  }
  const out: Batch[] = [];
  for (const id of changed) if (!fresh.has(id)) cache.rows.delete(id);
  for (const r of listed) {
    const kept = cache.rows.get(r.id);
    if (kept) out.push(kept.batch);
  }
  return out;
}

/**
 * The executor's work from the open batches read: `start`, those with a receiver to start or finish;
 * `complete`, those whose every receiver is done or cancelled and whose orders are all settled (decided in
 * SQL for those candidates only: a batch still being delivered is never read in full).
 */
export async function executorWork(db: Queryable, open: Batch[]): Promise<{ start: Batch[]; complete: Batch[] }> {
  const start = open.filter(hasWork);
  const candidates = open.filter((b) => !hasWork(b));
  if (candidates.length === 0) return { start, complete: [] };
  const { rows } = await db.query(`SELECT id FROM batches WHERE id = ANY($1::text[]) AND finished_at IS NULL AND ${SETTLED}`, [candidates.map((b) => b.id)]);
  const settled = new Set(rows.map((r: { id: string }) => r.id));
  return { start, complete: candidates.filter((b) => settled.has(b.id)) };
}
