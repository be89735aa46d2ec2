/** The webhook event catalogue (spec section 6): the 13 values of WebhookEventType. */
export const webhookEventTypes = [
  'order.confirmed',
  'order.failed',
  'order.expired',
  'order.reclaimed',
  'order.refunded',
  'batch.completed',
  'subscription.refilled',
  'subscription.suspended',
  'subscription.paused',
  'subscription.charged',
  'balance.credited',
  'balance.low',
  'deposit_address.rotated',
] as const;

export type WebhookEventType = (typeof webhookEventTypes)[number];

export function isWebhookEventType(value: string): value is WebhookEventType {
  return (webhookEventTypes as readonly string[]).includes(value);
}

/** Whether an endpoint's `events` filter takes this event (null: every event, including future types). */
export function subscribes(filter: readonly string[] | null, eventType: string): boolean {
  return filter === null || filter.includes(eventType);
}
