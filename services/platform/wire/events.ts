/** Domain events to and from the Avro shape of schemas/account-event.avsc. */
import { EVENT_VERSION, type DomainEvent, type EventType } from '../../domain/events';

const ns = 'energy.rental.events.';

/** The Avro record name of each event type's `data`. */
const dataRecordOf: Record<EventType, string> = {
  'balance.credited': 'BalanceCredited',
  'balance.low': 'BalanceLow',
  'deposit_address.rotated': 'DepositAddressRotated',
  'order.confirmed': 'OrderConfirmed',
  'order.failed': 'OrderFailed',
  'order.expired': 'OrderExpired',
  'order.reclaimed': 'OrderReclaimed',
  'order.refunded': 'OrderRefunded',
  'batch.completed': 'BatchCompleted',
  'subscription.refilled': 'SubscriptionRefilled',
  'subscription.suspended': 'SubscriptionSuspended',
  'subscription.paused': 'SubscriptionPaused',
  'subscription.charged': 'SubscriptionCharged',
};

export interface WireEvent {
  event_id: string;
  event: string;
  event_version: number;
  created_at: bigint;
  account_id: string;
  network: 'mainnet' | 'nile';
  data: Record<string, Record<string, unknown>>;
}

/** Avro ints travel as numbers; these data fields are declared `int` in the schema. */
const intFields = new Set(['confirmations', 'spread_bps', 'duration_seconds']);
/** ...and these `long`, carried as bigint. */
const longFields = new Set([
  'amount_sun', 'balance_sun', 'block_number', 'threshold_sun', 'estimated_orders_remaining', 'amount', 'delivered_amount', 'total_amount_sun', 'refunded_amount_sun', 'charged_amount_sun',
  'trigger_available', 'threshold_amount', 'refills_today', 'required_sun', 'available_sun',
]);

function dataToWire(data: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(data)) {
    if (v === null || v === undefined) out[k] = null;
    else if (longFields.has(k)) out[k] = BigInt(v as bigint | number);
    else if (intFields.has(k)) out[k] = Number(v);
    // Nested records (order activation, failure) carry longs too.
    else if (typeof v === 'object' && !Array.isArray(v)) out[k] = dataToWire(v as Record<string, unknown>);
    else out[k] = v;
  }
  return out;
}

export function eventToWire(event: DomainEvent, network: 'mainnet' | 'nile'): WireEvent {
  return {
    event_id: event.eventId,
    event: event.type,
    event_version: EVENT_VERSION,
    created_at: BigInt(event.createdAt),
    account_id: event.accountId,
    network,
    data: { [ns + dataRecordOf[event.type]]: dataToWire(event.data as unknown as Record<string, unknown>) },
  };
}

export function eventFromWire(wire: WireEvent): DomainEvent & { network: 'mainnet' | 'nile'; eventVersion: number } {
  const data = Object.values(wire.data)[0] as Record<string, unknown>;
  return {
    eventId: wire.event_id,
    type: wire.event as EventType,
    accountId: wire.account_id,
    createdAt: Number(wire.created_at),
    data: data as never,
    network: wire.network,
    eventVersion: wire.event_version,
  };
}
