/**
 * Subscriptions (contract.md section 9) as the processor keeps them, and the pure rules around them:
 * the canonical request of a creation, the UTC day a refill counts against, when a refill is in flight,
 * and why a refill cannot run (the suspend reasons).
 */
import { requestHash, awaitingDelivery, type Order } from '../orders/rules';
import type { DelegatedResource, Tier } from '../pricing';

export const subscriptionKinds = ['refill', 'plan'] as const;
export type SubscriptionKind = (typeof subscriptionKinds)[number];
export const subscriptionStatuses = ['active', 'suspended', 'paused', 'ended'] as const;
export type SubscriptionStatus = (typeof subscriptionStatuses)[number];
export const suspendReasons = ['insufficient_funds', 'daily_limit_reached', 'price_above_limit'] as const;
export type SuspendReason = (typeof suspendReasons)[number];
export const pauseReasons = ['billing_failed', 'reserve_exhausted', 'user'] as const;
export type PauseReason = (typeof pauseReasons)[number];

/** Contract section 9: at most this many subscriptions that are not `ended` per account (3023). */
export const MAX_LIVE_SUBSCRIPTIONS = 100;
export const DEFAULT_MAX_REFILLS_PER_DAY = 24;

/** The fields a creation is made of; a repeated client_subscription_id must carry the same ones. */
export interface SubscriptionSpec {
  kind: SubscriptionKind;
  receiver: string;
  resource: DelegatedResource;
  amount: number;
  tier: Tier | null;
  thresholdAmount: number | null;
  maxPriceSun: bigint | null;
  maxRefillsPerDay: number;
}

/** A subscription as the processor keeps it: its spec (mutable by PATCH) and its running state. */
export interface Subscription extends SubscriptionSpec {
  id: string;
  accountId: string;
  clientSubscriptionId: string | null;
  requestHash: string;
  status: SubscriptionStatus;
  refillsToday: number;
  /** The UTC day (YYYY-MM-DD) `refillsToday` counts; null before the first refill. */
  refillDay: string | null;
  lastRefillAt: number | null;
  lastOrderId: string | null;
  reason: SuspendReason | PauseReason | null;
  dailyFeeSun: bigint | null;
  nextBillingAt: number | null;
  createdAt: number;
  updatedAt: number;
}

export function subscriptionRequestHash(clientSubscriptionId: string | null, s: SubscriptionSpec): string {
  return requestHash({
    client_subscription_id: clientSubscriptionId, kind: s.kind, receiver: s.receiver, resource: s.resource, amount: s.amount, tier: s.tier,
    threshold_amount: s.thresholdAmount, max_price_sun: s.maxPriceSun, max_refills_per_day: s.maxRefillsPerDay,
  });
}

export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** Refills counted today: the stored count only while its day is still today (UTC). */
export function refillsOn(sub: Subscription, at: number): number {
  return sub.refillDay === utcDay(at) ? sub.refillsToday : 0;
}

/** A refill is in flight while its order still waits for delivery: no second one before it lands or fails. */
export function refillInFlight(lastOrder: Order | undefined): boolean {
  return lastOrder !== undefined && awaitingDelivery.includes(lastOrder.status);
}

/** Why a refill of `totalSun` cannot run now, checked in the contract's order; null when it can. */
export function refillBlocker(sub: Subscription, at: number, totalSun: bigint, availableSun: bigint): SuspendReason | null {
  if (refillsOn(sub, at) >= sub.maxRefillsPerDay) return 'daily_limit_reached';
  if (sub.maxPriceSun !== null && totalSun > sub.maxPriceSun) return 'price_above_limit';
  if (availableSun < totalSun) return 'insufficient_funds';
  return null;
}

/** Whether the cause of a suspension has cleared, from the same facts a refill is decided on. */
export function suspensionCleared(sub: Subscription, at: number, totalSun: bigint, availableSun: bigint): boolean {
  switch (sub.reason) {
    case 'daily_limit_reached':
      return refillsOn(sub, at) < sub.maxRefillsPerDay;
    case 'price_above_limit':
      return sub.maxPriceSun === null || totalSun <= sub.maxPriceSun;
    case 'insufficient_funds':
      return availableSun >= totalSun;
    default:
      return false;
  }
}

/** Read access the subscription handlers need (services/subscriptions/store.ts serves it to the processor). */
export interface SubscriptionView {
  byId(subscriptionId: string): Subscription | undefined;
  byClientId(accountId: string, clientSubscriptionId: string): Subscription | undefined;
  /** The account's subscriptions that are not `ended`. */
  liveOf(accountId: string): Subscription[];
  /** A subscription's last refill order as loaded with it (the batch's own changes are in state.orders). */
  loadedOrder(orderId: string): Order | undefined;
}

/** The memo of a plan's daily order: it marks the order's charge as `subscription_fee` (a refill's is `subscription_usage`). */
export const PLAN_ORDER_MEMO = 'subscription plan day';

export function isPlanOrder(order: Pick<Order, 'source' | 'memo'>): boolean {
  return order.source === 'subscription' && order.memo === PLAN_ORDER_MEMO;
}

/** `subscription.charged`'s `plan`: what the plan delivers per day. */
export function planName(sub: Pick<Subscription, 'amount' | 'resource'>): string {
  return `${sub.amount} ${sub.resource} per day`;
}
