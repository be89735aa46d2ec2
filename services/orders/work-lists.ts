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
 * The orders of a work list, oldest first. With a cache: one query answers the list's ids and row versions,
 * and the full rows only of those new or changed since the cache saw them (the others' columns come back
 * null and are taken from the cache): one round trip whatever changed.
 */
export async function workList(pool: Pool, list: WorkList, now: number, limit = 500, cache?: WorkListCache): Promise<Order[]> {
  const order = list === 'due-close' ? 'expires_at' : 'created_at';
  const params: unknown[] = list === 'due-close' ? [limit, new Date(now)] : [limit];
  if (!cache) {
    const { rows } = await pool.query(`SELECT ${orderColumns.join(', ')} FROM orders WHERE ${where[list]} ORDER BY ${order} LIMIT $1`, params);
    return rows.map(orderFromRow);
  }
  const known = [...cache.rows];
  const ids = `$${params.length + 1}`;
  const versions = `$${params.length + 2}`;
  params.push(known.map(([id]) => id), known.map(([, kept]) => kept.version));
  const stale = 'k.v IS DISTINCT FROM w.row_version';
  const { rows } = await pool.query(
    `SELECT w.id, w.row_version, ${stale} AS changed, ${orderColumns.filter((c) => c !== 'id').map((c) => `CASE WHEN ${stale} THEN w.${c} END AS ${c}`).join(', ')}
       FROM (SELECT ${orderColumns.join(', ')}, xmin::text AS row_version FROM orders WHERE ${where[list]} ORDER BY ${order} LIMIT $1) w
       LEFT JOIN unnest(${ids}::text[], ${versions}::text[]) AS k(id, v) ON k.id = w.id
      ORDER BY w.${order}`,
    params,
  );
  const listed = new Set<string>();
  const out: Order[] = [];
  for (const r of rows as Array<Record<string, any> & { id: string; row_version: string; changed: boolean }>) {
    listed.add(r.id);
    if (r.changed) cache.rows.set(r.id, { version: r.row_version, order: orderFromRow(r) });
    out.push((cache.rows.get(r.id) as { order: Order }).order);
  }
  for (const id of cache.rows.keys()) if (!listed.has(id)) cache.rows.delete(id);
  return out;
}
