/**
 * The signed-set store's questions about orders (services/delivery/signed-sets.ts owns order_signatures,
 * order_tx_ids and receiver_activations; the processor owns orders).
 */
import { inDeliverySql } from '../domain/orders/rules';
import type { Pool } from '../platform/db/pool';

/** SQL: the order whose id is `orderIdSql` exists and has failed (its activation claim is free again). */
export const orderFailedSql = (orderIdSql: string): string => `EXISTS (SELECT 1 FROM orders o WHERE o.id = ${orderIdSql} AND o.status = 'failed')`;

/** Orders in the delivery roles' hands that have a stored `allocate` set. */
export async function allocateSetsInDelivery(pool: Pool): Promise<string[]> {
  const { rows } = await pool.query(
    `SELECT s.order_id FROM order_signatures s JOIN orders o ON o.id = s.order_id WHERE s.purpose = 'allocate' AND ${inDeliverySql('o.')}`,
  );
  return rows.map((r: { order_id: string }) => r.order_id);
}

/** The stored `allocate` sets of these orders, with each order's resource. */
export async function allocateSetsOf(pool: Pool, orderIds: string[]): Promise<Array<{ orderId: string; resource: string; command: string }>> {
  if (orderIds.length === 0) return [];
  const { rows } = await pool.query(
    `SELECT s.order_id, o.resource, s.command FROM order_signatures s JOIN orders o ON o.id = s.order_id
      WHERE s.purpose = 'allocate' AND s.order_id = ANY($1::text[])`,
    [orderIds],
  );
  return rows.map((r: { order_id: string; resource: string; command: string }) => ({ orderId: r.order_id, resource: r.resource, command: r.command }));
}
