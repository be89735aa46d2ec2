/** Order events to and from the Avro shape of schemas/order-event.avsc. */
import type { OrderEvent, OrderEventType } from '../../domain/order-events';

export interface WireOrderEvent {
  event_id: string;
  type: string;
  occurred_at: bigint;
  account_id: string;
  network: 'mainnet' | 'nile';
  order: Record<string, unknown>;
}

/** Order fields declared `long` (bigint on the wire) and `int`; the rest pass as they are. */
const longFields = new Set(['amount', 'delivered_amount', 'price_sun_per_unit', 'pay_amount_sun', 'activate_amount_sun', 'total_amount_sun', 'refunded_amount_sun', 'amount_sun']);
const intFields = new Set(['duration_seconds', 'code']);
/** Optional fields an older payload may lack: the schema's default applies. */
const defaults: Record<string, unknown> = { pay_amount_sun: 0n, activate_amount_sun: 0n, refunded_amount_sun: 0n, partial: false, delegate_hashes: [] };

function toWire(value: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (v === null || v === undefined) out[k] = defaults[k] ?? null;
    else if (longFields.has(k)) out[k] = BigInt(v as bigint | number | string);
    else if (intFields.has(k)) out[k] = Number(v);
    else if (typeof v === 'object' && !Array.isArray(v)) out[k] = toWire(v as Record<string, unknown>);
    else out[k] = v;
  }
  return out;
}

export function orderEventToWire(event: OrderEvent, network: 'mainnet' | 'nile'): WireOrderEvent {
  return {
    event_id: event.eventId,
    type: event.type,
    occurred_at: BigInt(event.occurredAt),
    account_id: event.accountId,
    network,
    order: toWire(event.order),
  };
}

/** Decoded: Avro unions of a record come back wrapped by avsc only for named branches; failure is one. */
export function orderEventFromWire(wire: WireOrderEvent): OrderEvent & { network: 'mainnet' | 'nile' } {
  const order = { ...wire.order };
  const failure = order.failure as Record<string, unknown> | null;
  if (failure && !('code' in failure)) order.failure = Object.values(failure)[0] ?? null;
  return {
    eventId: wire.event_id,
    type: wire.type as OrderEventType,
    accountId: wire.account_id,
    occurredAt: Number(wire.occurred_at),
    order,
    network: wire.network,
  };
}
