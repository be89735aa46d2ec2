/**
 * The signed-set store's questions about orders (services/delivery/signed-sets.ts owns order_signatures,
 * order_tx_ids and receiver_activations; the processor owns orders).
 */
import { inDeliverySql } from '../domain/orders/rules';
import type { Pool } from '../platform/db/pool';

/** SQL: the order whose id is `orderIdSql` exists and has failed (its activation claim is free again). */
export const orderFailedSql = (orderIdSql: string): string => `EXISTS (SELECT 1 FROM orders o WHERE o.id = ${orderIdSql} AND o.status = 'failed')`;

/**
 * Orders in the delivery roles' hands that have a stored `allocate` set, with each order's resource and,
 * for those not in `known` (the sets the caller already holds: they never change), the set's command text.
 * One round trip whatever the mix.
 */
export async function allocateSetsInDelivery(pool: Pool, known: readonly string[]): Promise<Array<{ orderId: string; resource: string; command: string | null }>> {
  const { rows } = await pool.query(
    `SELECT s.order_id, o.resource, CASE WHEN k.id IS NULL THEN s.command END AS command
       FROM order_signatures s JOIN orders o ON o.id = s.order_id LEFT JOIN unnest($1::text[]) AS k(id) ON k.id = s.order_id
      WHERE s.purpose = 'allocate' AND ${inDeliverySql('o.')}`,
    [known],
  );
  return rows.map((r: { order_id: string; resource: string; command: string | null }) => ({ orderId: r.order_id, resource: r.resource, command: r.command }));
}
