/**
 * The order-events topic (contract.md section 10): one record per transition of an order, carrying the
 * whole Order object as it stands after that transition. Derived here once, from the order before and
 * after a command, so every handler that moves an order emits them without knowing about them. Ids derive
 * from the command (and the record's place among its order events), so a replay re-emits identical ids.
 */
import type { Command } from './commands';
import { derivedId } from './ids';
import { orderJson } from './orders/view';
import { type Order, type OrderStatus } from './orders/rules';

export const orderEventTypes = [
  'order.created', 'order.allocated', 'order.confirmed', 'order.active', 'order.expired', 'order.reclaimed', 'order.failed', 'order.refunded',
] as const;
export type OrderEventType = (typeof orderEventTypes)[number];

export interface OrderEvent {
  eventId: string;
  type: OrderEventType;
  accountId: string;
  /** The causing command's time. */
  occurredAt: number;
  /** `orderJson` of the order after the transition (bigint `*_sun`, ISO date-times). */
  order: Record<string, unknown>;
}

/** Statuses whose arrival is a transition of its own on the topic. */
const arrivals: Partial<Record<OrderStatus, OrderEventType>> = {
  confirmed: 'order.confirmed', active: 'order.active', expired: 'order.expired', reclaimed: 'order.reclaimed',
  failed: 'order.failed', refunded: 'order.refunded',
};

/**
 * The transitions from `before` (undefined: the order is new) to `after`, each with the order as it
 * stands after it. A delivery verified straight into `active` passes through `confirmed` (spec section 3),
 * so it yields both, the first showing the order in `confirmed`.
 */
export function transitionsOf(before: Order | undefined, after: Order): Array<{ type: OrderEventType; order: Order }> {
  const out: Array<{ type: OrderEventType; order: Order }> = [];
  if (!before) out.push({ type: 'order.created', order: after });
  // A set applied as broadcast (order.allocations) moves `allocating` to `delegated` in the same step: still
  // its allocation on the topic, the order shown as the allocation left it (the broadcast is no transition
  // of its own there, as with the broadcast report before).
  const broadcast = before?.status === 'allocating' && after.status === 'delegated';
  if ((before?.allocations.length ?? 0) === 0 && after.allocations.length > 0 && (!before || before.status === after.status || broadcast)) {
    out.push({ type: 'order.allocated', order: broadcast ? { ...after, status: 'allocating' } : after });
  }
  if (before?.status !== after.status) {
    if (after.status === 'active' && before?.status !== 'confirmed') out.push({ type: 'order.confirmed', order: { ...after, status: 'confirmed' } });
    const type = arrivals[after.status];
    if (type) out.push({ type, order: after });
  }
  return out;
}

/** The order events of one applied command, in transition order per order. */
export function orderEventsOf(command: Pick<Command, 'commandId' | 'issuedAt'>, before: (orderId: string) => Order | undefined, changed: Order[]): OrderEvent[] {
  const events: OrderEvent[] = [];
  for (const after of changed) {
    for (const t of transitionsOf(before(after.id), after)) {
      events.push({
        eventId: derivedId('event', command.commandId, 'order-events', events.length),
        type: t.type,
        accountId: after.accountId,
        occurredAt: command.issuedAt,
        order: orderJson(t.order),
      });
    }
  }
  return events;
}
