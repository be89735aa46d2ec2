/**
 * The reads of batch rows the API and the executor make. Only the processor writes the table
 * (services/processor/batch-store.ts, which also maps its rows).
 */
import type { Order } from '../domain/orders/rules';
import type { Pool } from '../platform/db/pool';
import { BATCH_SELECT, batchFromRow } from '../processor/batch-store';
import { batchesWithOrdersSettled, ordersById } from '../orders/reads';
import type { Batch } from '../domain/batches/rules';

type Queryable = Pick<Pool, 'query'>;

/** `bat_` id or `cid:<client_batch_id>`, the caller's own only. */
export async function batchByRef(db: Queryable, accountId: string, ref: string): Promise<Batch | undefined> {
  const { rows } = ref.startsWith('cid:')
    ? await db.query(`${BATCH_SELECT} FROM batches WHERE account_id = $1 AND client_batch_id = $2`, [accountId, ref.slice(4)])
    : await db.query(`${BATCH_SELECT} FROM batches WHERE account_id = $1 AND id = $2`, [accountId, ref]);
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
  const { rows } = await db.query(`${BATCH_SELECT} FROM batches WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT $${params.length}`, params);
  return rows.map(batchFromRow);
}

/** The orders the given batches produced (chunks and top-ups), by id. */
export async function ordersOfBatches(db: Queryable, batches: Batch[]): Promise<Map<string, Order>> {
  return ordersById(db, batches.flatMap((b) => b.items.flatMap((i) => (i.bandwidthOrderId ? [...i.orderIds, i.bandwidthOrderId] : i.orderIds))));
}

/** A receiver the executor still has to start or finish. */
const hasWork = (b: Batch): boolean => b.items.some((i) => i.progress === 'queued' || i.progress === 'started');

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
    const full = await db.query(`${BATCH_SELECT}, xmin::text AS row_version FROM batches WHERE id = ANY($1::text[]) AND finished_at IS NULL`, [changed]);
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
  const settled = await batchesWithOrdersSettled(db, candidates.map((b) => b.id));
  return { start, complete: candidates.filter((b) => settled.has(b.id)) };
}
