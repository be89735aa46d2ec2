/**
 * The delivery roles' work lists: the orders in each step of delivery, read from the processor's table.
 * Each condition is written once, from the SQL twins of the domain's status rules (domain/orders/rules.ts).
 */
import { closingSql, endedWithStakeSql, inDeliverySql, type Order } from '../domain/orders/rules';
import type { Pool } from '../platform/db/pool';
import { orderColumns, orderFromRow } from './rows';

export type WorkList = 'allocating' | 'needs-allocation' | 'allocated' | 'due-close' | 'closing';

const where: Record<WorkList, string> = {
  allocating: inDeliverySql(),
  'needs-allocation': "status = 'allocating' AND allocations = '[]'::jsonb",
  allocated: `${inDeliverySql()} AND allocations <> '[]'::jsonb`,
  // The ids first, from three index reads (migrations/1765300000001_orders-due-close-indexes.sql: the
  // predicates are these branches word for word), then the whole condition: no pass reads the staying orders.
  'due-close': `id IN (
      SELECT id FROM orders WHERE status IN ('confirmed', 'active') AND expires_at <= $2
      UNION ALL SELECT id FROM orders WHERE status IN ('confirmed', 'active') AND close_reason = 'reclaimed' AND undelegations = '[]'::jsonb
      UNION ALL SELECT id FROM orders WHERE ${endedWithStakeSql()} AND undelegations = '[]'::jsonb)
    AND resource <> 'activation' AND undelegations = '[]'::jsonb AND (
      (status IN ('confirmed', 'active') AND (close_reason = 'reclaimed' OR expires_at <= $2))
      OR (${endedWithStakeSql()} AND (status = 'failed' OR expires_at <= $2)))`,
  // Indexed by exactly this condition (migrations/1764410000000_orders-closing-index.sql): change both together.
  closing: closingSql(),
};

/**
 * Orders of a work list a role reads every pass, kept with their row version (PostgreSQL's xmin: every
 * update of a row writes a new one), so a pass fetches and parses only the rows that changed since the
 * last (allocations and undelegations carry every signed transaction's JSON). Bounded: trimmed to the list.
 */
export class WorkListCache {
  readonly rows = new Map<string, { version: string; order: Order }>();
}

/**
 * The orders of a work list, oldest first. With a cache: the list's ids and row versions, then the full
 * rows of those new or changed, read again under the list's condition (a row that left the list between
 * the two reads is left out, as the one-query read would have).
 */
export async function workList(pool: Pool, list: WorkList, now: number, limit = 500, cache?: WorkListCache): Promise<Order[]> {
  const order = list === 'due-close' ? 'expires_at' : 'created_at';
  const params = list === 'due-close' ? [limit, new Date(now)] : [limit];
  if (!cache) {
    const { rows } = await pool.query(`SELECT ${orderColumns.join(', ')} FROM orders WHERE ${where[list]} ORDER BY ${order} LIMIT $1`, params);
    return rows.map(orderFromRow);
  }
  const { rows } = await pool.query(`SELECT id, xmin::text AS version FROM orders WHERE ${where[list]} ORDER BY ${order} LIMIT $1`, params);
  const listed = rows as Array<{ id: string; version: string }>;
  const ids = new Set(listed.map((r) => r.id));
  for (const id of cache.rows.keys()) if (!ids.has(id)) cache.rows.delete(id);
  const changed = new Set(listed.filter((r) => cache.rows.get(r.id)?.version !== r.version).map((r) => r.id));
  const fresh = new Set<string>();
  if (changed.size > 0) {
    const full = await pool.query(
      `SELECT ${orderColumns.join(', ')}, xmin::text AS row_version FROM orders WHERE id = ANY($1::text[]) AND ${where[list]}`,
      list === 'due-close' ? [[...changed], new Date(now)] : [[...changed]],
    );
    for (const r of full.rows) {
      cache.rows.set(r.id, { version: r.row_version, order: orderFromRow(r) });
      fresh.add(r.id);
    }
  }
  // A changed row not read back has left the list (or changed again and left it): not returned, not kept.
  const out: Order[] = [];
  for (const r of listed) {
    const kept = cache.rows.get(r.id);
    if (!kept) continue;
    if (changed.has(r.id) && !fresh.has(r.id)) {
      cache.rows.delete(r.id);
      continue;
    }
    out.push(kept.order);
  }
  return out;
}

