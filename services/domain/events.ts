/**
 * Events the processor emits (through the outbox) onto account-events. Their ids derive from the command
 * and the event's position among its effects, so a replay re-emits the same ids and consumers dedup.
 */
import { derivedId } from './ids';

export const EVENT_VERSION = 1;

export interface BalanceCreditedData {
  reason: 'deposit' | 'refund' | 'referral' | 'adjustment';
  currency: 'TRX' | 'USDT';
  amount_sun: bigint;
  tx_hash: string | null;
  confirmations: number | null;
  balance_sun: bigint | null;
  reference_id: string | null;
  asset: 'TRX' | 'USDT';
  usdt_amount: string | null;
  rate: string | null;
  rate_source: string | null;
  spread_bps: number | null;
  txid: string | null;
  sender: string | null;
  block_number: number | null;
}

export interface DepositAddressRotatedData {
  address: string;
  /** null on first issue. */
  retired_address: string | null;
  retired_credit_until: string | null;
  rotated_at: string;
}

export interface OrderActivationData {
  performed: boolean;
  hash: string | null;
  amount_sun: bigint;
}

export interface OrderConfirmedData {
  order_id: string;
  client_order_id: string | null;
  batch_id: string | null;
  subscription_id: string | null;
  resource: string;
  amount: bigint | null;
  delivered_amount: bigint | null;
  partial: boolean;
  tier: string | null;
  duration_seconds: number | null;
  receiver: string;
  delegate_hash: string | null;
  delegate_hashes: string[];
  delegated_at: string | null;
  expires_at: string | null;
  total_amount_sun: bigint;
  refunded_amount_sun: bigint;
  activation: OrderActivationData;
}

export interface OrderFailedData {
  order_id: string;
  client_order_id: string | null;
  receiver: string;
  resource: string;
  amount: bigint | null;
  tier: string | null;
  failure: { code: number; slug: string; message: string };
  charged_amount_sun: bigint;
  refunded_amount_sun: bigint;
  refund_complete: boolean;
}

export interface OrderReclaimedData {
  order_id: string;
  client_order_id: string | null;
  receiver: string;
  resource: string;
  amount: bigint | null;
  reclaim_hash: string | null;
  reclaimed_at: string;
  refunded_amount_sun: bigint;
}

/** As order.reclaimed, with `expired_at` instead of `reclaimed_at`. */
export type OrderExpiredData = Omit<OrderReclaimedData, 'reclaimed_at'> & { expired_at: string };

export interface OrderRefundedData {
  order_id: string;
  client_order_id: string | null;
  receiver: string;
  resource: string;
  amount: bigint | null;
  delivered_amount: bigint | null;
  partial: boolean;
  reason: 'incident_credit' | 'dispute' | 'partial_delivery' | 'support_adjustment';
  charged_amount_sun: bigint;
  refunded_amount_sun: bigint;
  refund_complete: boolean;
  refunded_at: string;
}

export interface BalanceLowData {
  /** The available balance (balance minus reserved) that fell below the threshold. */
  balance_sun: bigint;
  threshold_sun: bigint;
  /** 65,000-energy 5m orders the available balance still pays for, at the price in force; null when unpriced. */
  estimated_orders_remaining: bigint | null;
}

export interface BatchCompletedData {
  batch_id: string;
  client_batch_id: string | null;
  status: string;
  summary: { total: number; completed: number; partial: number; failed: number; insufficient_funds: number; cancelled: number };
  charged_amount_sun: bigint;
  finished_at: string;
}

export interface SubscriptionRefilledData {
  subscription_id: string;
  order_id: string;
  receiver: string;
  resource: string;
  amount: number;
  tier: string | null;
  trigger_available: number;
  threshold_amount: number;
  total_amount_sun: bigint;
  refills_today: number;
}

export interface SubscriptionSuspendedData {
  subscription_id: string;
  receiver: string;
  reason: 'insufficient_funds' | 'daily_limit_reached' | 'price_above_limit';
  required_sun: bigint;
  available_sun: bigint;
}

export interface SubscriptionPausedData {
  subscription_id: string;
  receiver: string;
  reason: 'billing_failed' | 'reserve_exhausted' | 'user';
}

export interface SubscriptionChargedData {
  subscription_id: string;
  receiver: string;
  plan: string;
  amount_sun: bigint;
  next_billing_at: string;
}

export interface EventDataByType {
  'balance.low': BalanceLowData;
  'balance.credited': BalanceCreditedData;
  'deposit_address.rotated': DepositAddressRotatedData;
  'order.confirmed': OrderConfirmedData;
  'order.failed': OrderFailedData;
  'order.expired': OrderExpiredData;
  'order.reclaimed': OrderReclaimedData;
  'order.refunded': OrderRefundedData;
  'batch.completed': BatchCompletedData;
  'subscription.refilled': SubscriptionRefilledData;
  'subscription.suspended': SubscriptionSuspendedData;
  'subscription.paused': SubscriptionPausedData;
  'subscription.charged': SubscriptionChargedData;
}

export type EventType = keyof EventDataByType;

export interface DomainEvent<T extends EventType = EventType> {
  eventId: string;
  type: T;
  accountId: string;
  /** When it happened (the causing command's time), kept across retries and replays. */
  createdAt: number;
  data: EventDataByType[T];
}

export function eventIdFor(commandId: string, index: number): string {
  return derivedId('event', commandId, index);
}
