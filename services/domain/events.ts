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

export interface EventDataByType {
  'balance.credited': BalanceCreditedData;
  'deposit_address.rotated': DepositAddressRotatedData;
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
