import type { BalanceCreditedData, DomainEvent } from './events';

/** What a `balance.credited` says beyond its reason and amount; every other field defaults to null. */
export type BalanceCreditedFields =
  Pick<BalanceCreditedData, 'reason' | 'currency' | 'amount_sun' | 'asset'> & Partial<BalanceCreditedData>;

/**
 * A `balance.credited` event (adjustment, deposit, refund): the fields not given are null, in the
 * schema's order. The event id and time are the causing command's.
 */
export function balanceCredited(
  eventId: string, accountId: string, createdAt: number, fields: BalanceCreditedFields,
): DomainEvent<'balance.credited'> {
  const data: BalanceCreditedData = {
    reason: fields.reason, currency: fields.currency, amount_sun: fields.amount_sun, tx_hash: null, confirmations: null,
    balance_sun: null, reference_id: null, asset: fields.asset, usdt_amount: null, rate: null, rate_source: null,
    spread_bps: null, txid: null, sender: null, block_number: null,
  };
  return { eventId, type: 'balance.credited', accountId, createdAt, data: { ...data, ...fields } };
}
