/** The customer-facing JSON of an order (spec section 2, Order and order detail). Pure. */
import { routingFeeOf } from '../routing-fee';
import type { Order, OrderStatus } from './rules';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function delegateHashes(order: Order): string[] {
  return order.allocations.filter((a) => a.kind === 'delegate' && a.landed !== false).map((a) => a.txId);
}

export function activationOf(order: Order): { performed: boolean; hash: string | null; amount_sun: bigint } {
  const tx = order.allocations.find((a) => a.kind === 'activate');
  return { performed: tx?.landed === true, hash: tx?.txId ?? null, amount_sun: order.activateSun };
}

/**
 * The status a customer reads. A delegation broadcast but not yet verified (stored `delegated`) reads
 * `active` with its `delegate_hash`, as the synchronous answer of POST /v1/orders gives it (spec section 3,
 * the normal case), so every later read agrees with that answer and no status ever reads as going back;
 * `delegated_at` and `expires_at` are set when the chain verifies the delegation.
 */
export function shownStatus(status: OrderStatus): OrderStatus {
  return status === 'delegated' ? 'active' : status;
}

/** The stored statuses a filter on shown statuses selects (`active` includes the broadcast ones; `delegated` reads as none). */
export function storedStatusesShownAs(shown: readonly OrderStatus[]): OrderStatus[] {
  return [...new Set(shown.flatMap((s): OrderStatus[] => (s === 'active' ? ['active', 'delegated'] : s === 'delegated' ? [] : [s])))];
}

/** The Order object of the spec, fields in contract order. */
export function orderJson(order: Order): Record<string, unknown> {
  const hashes = delegateHashes(order);
  return {
    id: order.id,
    client_order_id: order.clientOrderId,
    account_id: order.accountId,
    batch_id: order.batchId ?? null,
    subscription_id: order.subscriptionId ?? null,
    resource: order.resource,
    amount: order.amount,
    delivered_amount: order.deliveredAmount,
    partial: order.partial,
    tier: order.tier,
    duration_seconds: order.durationSeconds,
    receiver: order.receiver,
    source: order.source,
    status: shownStatus(order.status),
    confirm_status: order.confirmStatus,
    price_sun_per_unit: order.priceSunPerUnit,
    pay_amount_sun: order.paySun,
    activate_amount_sun: order.activateSun,
    total_amount_sun: order.totalSun,
    refunded_amount_sun: order.refundedSun,
    delegate_hash: hashes[0] ?? null,
    delegate_hashes: hashes,
    delegated_at: iso(order.delegatedAt),
    reclaim_hash: order.reclaimHash,
    reclaimed_at: iso(order.reclaimedAt),
    expires_at: iso(order.expiresAt),
    activation: activationOf(order),
    memo: order.memo,
    created_at: iso(order.createdAt),
    updated_at: iso(order.updatedAt),
    failure: order.failure ? { code: order.failure.code, slug: order.failure.slug, message: order.failure.message, at: iso(order.failure.at) } : null,
  };
}

/** Spec fill classes: the own stake pool fills `instant`; a third-party provider fills at `market`. */
export type FillClass = 'instant' | 'market' | 'deep';

export interface Fill {
  class: FillClass;
  amount: number;
  price_sun: number | null;
}

/**
 * What really filled the order, one entry per class: the units of its delegations that landed (or may
 * still land, before settlement), priced at what the customer pays per unit. Nothing used, no fill: an
 * order not yet signed, or failed with nothing landed, has none.
 */
export function fillsOf(order: Order): Fill[] {
  const units = order.allocations.filter((a) => a.kind === 'delegate' && a.landed !== false).reduce((sum, a) => sum + a.amount, 0);
  if (units === 0) return [];
  return [{ class: order.supplier === 'provider' ? 'market' : 'instant', amount: units, price_sun: fillPriceSun(order) }];
}

/**
 * SUN per unit the customer pays in the order's class: the price row's plus the routing fee spread over the
 * ordered units (docs/routing-fee.md), so `amount x price_sun` of the fills explains what was charged for
 * the resource. A partial refund returns the fee pro rata, so the per-unit price holds for what landed too.
 * Rounded to a millionth of a SUN (a fee rarely divides the units evenly).
 */
export function fillPriceSun(order: Pick<Order, 'supplier' | 'paySun' | 'priceSunPerUnit' | 'amount'>): number | null {
  if (order.priceSunPerUnit === null) return null;
  const fee = routingFeeOf(order);
  if (fee === 0n || !order.amount) return Number(order.priceSunPerUnit);
  const micro = (order.priceSunPerUnit * BigInt(order.amount) + fee) * 1_000_000n;
  const amount = BigInt(order.amount);
  // Rounded half up on the exact bigint quotient, then one division in floating point.
  return Number((micro + amount / 2n) / amount) / 1_000_000;
}

/** Order detail: the Order plus fills (no supplier named) and delegations. */
export function orderDetailJson(order: Order): Record<string, unknown> {
  const delegations = order.allocations.filter((a) => a.kind === 'delegate' && a.landed !== false);
  return {
    ...orderJson(order),
    fills: fillsOf(order),
    delegations: delegations.map((a) => ({ amount: a.amount, tx_id: a.txId })),
  };
}
