/** The Subscription object of contract.md section 9, from the processor's row. */
import type { Subscription } from './rules';
import { refillsOn } from './rules';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** `at` (the reader's clock) decides whether refills_today still counts: it resets at the UTC day. */
export function subscriptionJson(s: Subscription, at: number): Record<string, unknown> {
  return {
    id: s.id,
    client_subscription_id: s.clientSubscriptionId,
    kind: s.kind,
    status: s.status,
    receiver: s.receiver,
    resource: s.resource,
    amount: s.amount,
    tier: s.tier,
    threshold_amount: s.thresholdAmount,
    max_price_sun: s.maxPriceSun,
    max_refills_per_day: s.maxRefillsPerDay,
    refills_today: refillsOn(s, at),
    last_refill_at: iso(s.lastRefillAt),
    last_order_id: s.lastOrderId,
    reason: s.reason,
    daily_fee_sun: s.dailyFeeSun,
    next_billing_at: iso(s.nextBillingAt),
    created_at: iso(s.createdAt),
    updated_at: iso(s.updatedAt),
  };
}
