/**
 * Order state inside the processor's transaction: loads what a batch's order commands can touch (by order
 * id, client_order_id, quote id, Idempotency-Key), serves it to the pure handlers as an OrderView with the
 * batch's own changes on top, and writes the changes back. The row mapping is services/orders/rows.ts.
 */
import type { Command } from '../domain/commands';
import { heldStake, type IdempotencyRecord, type Order } from '../domain/orders/rules';
import type { Effects, OrderView } from '../domain/outcome';
import type { FeatureState, SaveGroups } from './feature-state';
import type { WriteGroup } from '../platform/db/bulk';
import type { PoolClient } from '../platform/db/pool';
import { orderColumns, orderColumnTypes, orderFromRow, orderToRow } from '../orders/rows';

const orderCommandTypes = new Set(['order.create', 'order.allocate', 'order.settle', 'order.close', 'order.refund', 'order.deliver', 'order.allocations', 'order.settlements']);

export class OrderState implements OrderView, FeatureState {
  private readonly orders = new Map<string, Order>();
  /** Each order as stored before this batch: `order_stake` moves by what the stored row held and the new one holds. */
  private readonly stored = new Map<string, Order>();
  private readonly records = new Map<string, IdempotencyRecord>();
  readonly changedOrders = new Map<string, Order>();
  readonly changedRecords = new Map<string, IdempotencyRecord>();
  /** Trace contexts of the orders this batch creates from traced commands (written once: kept on conflict). */
  private readonly traces = new Map<string, Record<string, string>>();

  byId(orderId: string): Order | undefined {
    return this.orders.get(orderId);
  }

  byClientId(accountId: string, clientOrderId: string): Order | undefined {
    for (const o of this.orders.values()) if (o.accountId === accountId && o.clientOrderId === clientOrderId) return o;
    return undefined;
  }

  byQuote(accountId: string, quoteId: string): Order | undefined {
    for (const o of this.orders.values()) if (o.accountId === accountId && o.quoteId === quoteId) return o;
    return undefined;
  }

  idempotency(accountId: string, key: string): IdempotencyRecord | undefined {
    return this.records.get(`${accountId}\u0000${key}`);
  }

  put(order: Order, changed = true): void {
    this.orders.set(order.id, order);
    if (changed) this.changedOrders.set(order.id, order);
  }

  putRecord(record: IdempotencyRecord, changed = true): void {
    const k = `${record.accountId}\u0000${record.key}`;
    this.records.set(k, record);
    if (changed) this.changedRecords.set(k, record);
  }

  /** Loads every order and record the batch's order commands may read. */
  static async load(client: PoolClient, commands: Command[]): Promise<OrderState> {
    const state = new OrderState();
    const work = commands.filter((c) => orderCommandTypes.has(c.type));
    if (work.length === 0) return state;
    const ids: string[] = [];
    const cidAccounts: string[] = [];
    const cids: string[] = [];
    const quoteAccounts: string[] = [];
    const quotes: string[] = [];
    const keyAccounts: string[] = [];
    const keys: string[] = [];
    for (const c of work) {
      if ('orderId' in c) ids.push(c.orderId);
      if (c.type === 'order.allocations' || c.type === 'order.settlements') for (const e of c.entries) ids.push(e.orderId);
      if (c.type === 'order.create') {
        if (c.clientOrderId) (cidAccounts.push(c.accountId), cids.push(c.clientOrderId));
        if (c.quoteId) (quoteAccounts.push(c.accountId), quotes.push(c.quoteId));
      }
      if ((c.type === 'order.create' || c.type === 'order.close') && c.idempotencyKey) (keyAccounts.push(c.accountId), keys.push(c.idempotencyKey));
    }
    // Most order commands carry no Idempotency-Key: no round trip for an empty lookup.
    const recordRows = keys.length === 0 ? [] : (await client.query(
      `SELECT r.* FROM order_idempotency r JOIN unnest($1::text[], $2::text[]) AS t(a, k) ON r.account_id = t.a AND r.key = t.k`,
      [keyAccounts, keys],
    )).rows;
    for (const r of recordRows) {
      state.putRecord({
        accountId: r.account_id, key: r.key, scope: r.scope, requestHash: r.request_hash, orderId: r.order_id, status: r.status,
        createdAt: r.created_at.getTime(), expiresAt: r.expires_at.getTime(),
      }, false);
      ids.push(r.order_id);
    }
    const { rows } = await client.query(
      `SELECT ${orderColumns.join(', ')} FROM orders WHERE id = ANY($1::text[])
       UNION SELECT ${orderColumns.join(', ')} FROM orders o JOIN unnest($2::text[], $3::text[]) AS t(a, c) ON o.account_id = t.a AND o.client_order_id = t.c
       UNION SELECT ${orderColumns.join(', ')} FROM orders o JOIN unnest($4::text[], $5::text[]) AS q(a, c) ON o.account_id = q.a AND o.quote_id = q.c`,
      [ids, cidAccounts, cids, quoteAccounts, quotes],
    );
    for (const r of rows) {
      const order = orderFromRow(r);
      state.stored.set(order.id, order);
      state.put(order, false);
    }
    return state;
  }

  absorb(effects: Effects, command: Command, trace: Record<string, string> | null): void {
    for (const order of effects.orders ?? []) this.put(order);
    if (trace && command.type === 'order.create') for (const order of effects.orders ?? []) this.traces.set(order.id, trace);
    for (const record of effects.idempotency ?? []) this.putRecord(record);
  }

  stage({ first, last }: SaveGroups): void {
    this.save(first, last);
  }

  /**
   * Adds the batch's writes to `writes`: the changed orders, their idempotency records, and the change of
   * `order_stake` (see heldStake) their changes make. `later` (a group sent after `writes`, in the same
   * transaction) removes the `order_stake` rows that fell to zero, so the table holds exactly the keys with
   * stake whatever the batches were (a replay slices the log differently).
   */
  save(writes: WriteGroup, later: WriteGroup): void {
    writes.upsertArrays(
      'orders', [...orderColumnTypes, ['trace_context', 'jsonb']],
      [...this.changedOrders.values()].map((o) => {
        const trace = this.traces.get(o.id);
        return [...orderToRow(o), trace ? JSON.stringify(trace) : null];
      }),
      { key: 'id', keep: ['created_at', 'trace_context'] },
    );
    writes.upsertArrays(
      'order_idempotency',
      [['account_id', 'text'], ['key', 'text'], ['scope', 'text'], ['request_hash', 'text'], ['order_id', 'text'], ['status', 'smallint'],
        ['created_at', 'timestamptz'], ['expires_at', 'timestamptz']],
      [...this.changedRecords.values()].map((r) => [r.accountId, r.key, r.scope, r.requestHash, r.orderId, r.status, new Date(r.createdAt), new Date(r.expiresAt)]),
      { key: ['account_id', 'key'] },
    );
    const moves = this.stakeMoves();
    if (moves.length === 0) return;
    const columns = (rows: Array<[string, bigint]>) => {
      const keys = rows.map(([k]) => k.split('|'));
      return [keys.map((k) => k[0]), keys.map((k) => k[1]), keys.map((k) => k[2]), rows.map(([, sun]) => sun.toString())];
    };
    // Rows in key order: processor transactions of other partitions move the same receivers' rows, and
    // taking their locks in one order keeps them from deadlocking.
    writes.add({
      sql: `INSERT INTO order_stake (pool_address, receiver, resource, sun)
            SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[])
            ON CONFLICT (receiver, pool_address, resource) DO UPDATE SET sun = order_stake.sun + EXCLUDED.sun`,
      params: columns(moves),
    });
    const falling = moves.filter(([, sun]) => sun < 0n);
    if (falling.length === 0) return;
    later.add({
      sql: `DELETE FROM order_stake s USING unnest($1::text[], $2::text[], $3::text[]) AS t(pool_address, receiver, resource)
             WHERE s.receiver = t.receiver AND s.pool_address = t.pool_address AND s.resource = t.resource AND s.sun = 0`,
      params: columns(falling).slice(0, 3),
    });
  }

  /** Per stake key (sorted), what the changed orders hold now less what their stored rows held; no zeros. */
  stakeMoves(): Array<[string, bigint]> {
    const moves = new Map<string, bigint>();
    for (const order of this.changedOrders.values()) {
      const before = this.stored.get(order.id);
      for (const [key, sun] of heldStake(order)) moves.set(key, (moves.get(key) ?? 0n) + sun);
      if (before) for (const [key, sun] of heldStake(before)) moves.set(key, (moves.get(key) ?? 0n) - sun);
    }
    return [...moves].filter(([, sun]) => sun !== 0n).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }
}
