/** The API's reads of an account's orders (the processor writes orders; the API only reads them). */
import type { Order, OrderStatus } from '../domain/orders/rules';
import type { Pool } from '../platform/db/pool';
import { orderColumns, orderFromRow } from './rows';
import { storedStatusesShownAs } from '../domain/orders/view';

const columns = orderColumns.join(', ');

export async function orderById(pool: Pool, accountId: string, orderId: string): Promise<Order | undefined> {
  const { rows } = await pool.query(`SELECT ${columns} FROM orders WHERE id = $1 AND account_id = $2`, [orderId, accountId]);
  return rows[0] ? orderFromRow(rows[0]) : undefined;
}

/** `ord_...` or `cid:<client_order_id>`; another account's order is not found. */
export async function orderByRef(pool: Pool, accountId: string, ref: string): Promise<Order | undefined> {
  if (!ref.startsWith('cid:')) return orderById(pool, accountId, ref);
  const { rows } = await pool.query(`SELECT ${columns} FROM orders WHERE account_id = $1 AND client_order_id = $2`, [accountId, ref.slice(4)]);
  return rows[0] ? orderFromRow(rows[0]) : undefined;
}

export interface OrderFilter {
  status?: OrderStatus[];
  resource?: string;
  receiver?: string;
  clientOrderId?: string;
  /** created_at > createdAfter, created_at < createdBefore, from <= created_at < to. */
  createdAfter?: Date;
  createdBefore?: Date;
  from?: Date;
  to?: Date;
}

/** Position after the last row of a page: created_at and id (stable under inserts of newer orders). */
export interface OrderCursor {
  createdAt: Date;
  id: string;
}

export async function listOrders(pool: Pool, accountId: string, filter: OrderFilter, limit: number, after?: OrderCursor): Promise<Order[]> {
  const { where, params } = orderWhere(accountId, filter, after);
  params.push(limit);
  const { rows } = await pool.query(
    `SELECT ${columns} FROM orders WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT $${params.length}`,
    params,
  );
  return rows.map(orderFromRow);
}

/** The position of the listing's row number `offset` (from 1), or undefined when the listing is shorter. */
export async function orderPositionAt(pool: Pool, accountId: string, filter: OrderFilter, offset: number, after?: OrderCursor): Promise<OrderCursor | undefined> {
  const { where, params } = orderWhere(accountId, filter, after);
  params.push(offset - 1);
  const { rows } = await pool.query(
    `SELECT created_at, id FROM orders WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC OFFSET $${params.length} LIMIT 1`,
    params,
  );
  return rows[0] ? { createdAt: rows[0].created_at as Date, id: rows[0].id as string } : undefined;
}

function orderWhere(accountId: string, filter: OrderFilter, after?: OrderCursor): { where: string[]; params: unknown[] } {
  const where = ['account_id = $1'];
  const params: unknown[] = [accountId];
  const add = (sql: string, value: unknown) => {
    params.push(value);
    where.push(sql.replace('?', `$${params.length}`));
  };
  if (filter.status?.length) add('status = ANY(?::text[])', storedStatusesShownAs(filter.status));
  if (filter.resource) add('resource = ?', filter.resource);
  if (filter.receiver) add('receiver = ?', filter.receiver);
  if (filter.clientOrderId) add('client_order_id = ?', filter.clientOrderId);
  if (filter.createdAfter) add('created_at > ?', filter.createdAfter);
  if (filter.createdBefore) add('created_at < ?', filter.createdBefore);
  if (filter.from) add('created_at >= ?', filter.from);
  if (filter.to) add('created_at < ?', filter.to);
  if (after) {
    params.push(after.createdAt, after.id);
    where.push(`(created_at, id) < ($${params.length - 1}, $${params.length})`);
  }
  return { where, params };
}
