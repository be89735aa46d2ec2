/**
 * The trace context an order was created under (orders.trace_context, written by the processor), for the
 * delivery roles' spans: their work on the order joins the trace of the request that placed it.
 */
import type { Pool } from '../platform/db/pool';

export async function orderTraces(pool: Pool, orderIds: string[]): Promise<Map<string, Record<string, string>>> {
  if (orderIds.length === 0) return new Map();
  const { rows } = await pool.query<{ id: string; trace_context: Record<string, string> }>(
    'SELECT id, trace_context FROM orders WHERE id = ANY($1::text[]) AND trace_context IS NOT NULL', [orderIds],
  );
  return new Map(rows.map((r) => [r.id, r.trace_context]));
}
