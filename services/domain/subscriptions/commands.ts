/**
 * Subscription commands. On the wire they share one Avro record (`SubscriptionStep`: kind, subscription id,
 * JSON payload with int64 kept exact), as batch commands do, so a new step needs no schema change.
 */
import type { SubscriptionSpec } from './rules';

/** A plan's day as the API or the watcher priced it: the fee, and the receiver's activation read from the chain. */
export interface PlanPricing {
  priceSunPerUnit: bigint;
  dailyFeeSun: bigint;
  receiverActive: boolean;
  activateSun: bigint;
  supplier: 'pool' | 'provider';
}

/** POST /v1/subscriptions: the id derives from the command id; a plan carries its first day's price. */
export interface CreateSubscriptionCommand extends SubscriptionSpec {
  type: 'subscription.create';
  clientSubscriptionId: string | null;
  requestHash: string;
  plan?: PlanPricing | null;
}

/** PATCH /v1/subscriptions/{id}: absent fields unchanged; `isPaused` null leaves the status alone. */
export interface UpdateSubscriptionCommand {
  type: 'subscription.update';
  subscriptionId: string;
  changes: Partial<Pick<SubscriptionSpec, 'thresholdAmount' | 'amount' | 'tier' | 'maxPriceSun' | 'maxRefillsPerDay'>>;
  isPaused: boolean | null;
  /** Unpausing a plan charges the day again: its price. */
  plan?: PlanPricing | null;
}

/** DELETE /v1/subscriptions/{id}: status `ended`. */
export interface EndSubscriptionCommand {
  type: 'subscription.end';
  subscriptionId: string;
}

/** The price of one refill as the watcher read it when it appended the command (a replay decides the same). */
export interface RefillPricing {
  receiverActive: boolean;
  priceSunPerUnit: bigint;
  paySun: bigint;
  activateSun: bigint;
  durationSeconds: number;
  supplier: 'pool' | 'provider';
}

/**
 * The watcher saw the receiver's free resource below the threshold: the processor places the refill order
 * (or suspends, with the reason) in the same transaction. The command id derives from the subscription's
 * state as the watcher read it, so a watcher restarted before or after appending repeats the same command.
 */
export interface RefillSubscriptionCommand extends RefillPricing {
  type: 'subscription.refill';
  subscriptionId: string;
  triggerAvailable: number;
}

/** The watcher saw the cause of a suspension clear (a credit, a new UTC day, the price): back to active. */
export interface ResumeSubscriptionCommand extends RefillPricing {
  type: 'subscription.resume';
  subscriptionId: string;
}

/** The watcher: a plan's next day is due (`billingAt`, the next_billing_at it bills); charged or paused billing_failed. */
export interface ChargeSubscriptionCommand extends PlanPricing {
  type: 'subscription.charge';
  subscriptionId: string;
  billingAt: number;
}

/** The watcher: the pool could not deliver a plan's day (its order failed): paused reserve_exhausted. */
export interface PauseSubscriptionCommand {
  type: 'subscription.pause';
  subscriptionId: string;
  reason: 'reserve_exhausted';
  orderId: string;
}

export type SubscriptionCommand =
  | CreateSubscriptionCommand | UpdateSubscriptionCommand | EndSubscriptionCommand | RefillSubscriptionCommand | ResumeSubscriptionCommand
  | ChargeSubscriptionCommand | PauseSubscriptionCommand;
export const subscriptionCommandTypes: ReadonlySet<string> = new Set([
  'subscription.create', 'subscription.update', 'subscription.end', 'subscription.refill', 'subscription.resume',
  'subscription.charge', 'subscription.pause',
]);
