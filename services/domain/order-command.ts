/**
 * The pure part of placing an order: the `order.create` command from a priced request. POST /v1/orders and
 * the batch executor both build their command here, so an order from a batch is the very same command.
 */
import type { CreateOrderCommand, ForTransferFacts } from './commands';
import { requestHash } from './orders/rules';
import type { OrderResource, Tier } from './pricing';

export interface OrderPlacement {
  accountId: string;
  clientOrderId: string | null;
  idempotencyKey: string | null;
  quoteId: string | null;
  quoteExpiresAt: number | null;
  resource: OrderResource;
  amount: number | null;
  tier: Tier | null;
  durationSeconds: number | null;
  receiver: string;
  receiverActive: boolean;
  activate: boolean | null;
  maxPriceSun: bigint | null;
  priceSunPerUnit: bigint | null;
  paySun: bigint;
  activateSun: bigint;
  source: 'api' | 'dashboard' | 'batch' | 'subscription';
  memo: string | null;
  supplier: 'pool' | 'provider';
  batchId?: string | null;
  subscriptionId?: string | null;
  /** `for_transfer` orders: sized by the processor from these facts (`amount` null, or the quote's). */
  forTransfer?: ForTransferFacts | null;
}

export function orderCommandFrom(p: OrderPlacement): CreateOrderCommand & { accountId: string } {
  // The canonical request a repeated client_order_id or Idempotency-Key must match.
  const hash = requestHash({
    client_order_id: p.clientOrderId, quote_id: p.quoteId, resource: p.resource, amount: p.amount, tier: p.tier,
    receiver: p.receiver, activate: p.activate, max_price_sun: p.maxPriceSun, memo: p.memo,
    for_transfer: p.forTransfer ? `${p.forTransfer.to}:${p.forTransfer.amount}:${p.forTransfer.token}` : undefined,
  });
  return {
    type: 'order.create', accountId: p.accountId, clientOrderId: p.clientOrderId, idempotencyKey: p.idempotencyKey, requestHash: hash,
    resource: p.resource, amount: p.amount, tier: p.tier, durationSeconds: p.durationSeconds, receiver: p.receiver, receiverActive: p.receiverActive,
    activate: p.activate, maxPriceSun: p.maxPriceSun, quoteId: p.quoteId, quoteExpiresAt: p.quoteExpiresAt, priceSunPerUnit: p.priceSunPerUnit,
    paySun: p.paySun, activateSun: p.activateSun, source: p.source, memo: p.memo, supplier: p.supplier,
    ...(p.batchId ? { batchId: p.batchId } : {}),
    ...(p.subscriptionId ? { subscriptionId: p.subscriptionId } : {}),
    ...(p.forTransfer ? { forTransfer: p.forTransfer } : {}),
  };
}
