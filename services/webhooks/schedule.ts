/**
 * The retry schedule of spec section 6 and the delivery state machine of section 3, as plain functions
 * of clock times (milliseconds); the dispatcher persists what they return.
 */
const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Delay before attempt n+1 (index n): attempt 1 immediate, then 15 s, 30 s, 3 min, ..., 6 h. */
export const RETRY_DELAYS_MS = [0, 15 * SECOND, 30 * SECOND, 3 * MINUTE, 10 * MINUTE, 20 * MINUTE, 30 * MINUTE, HOUR, 3 * HOUR, 6 * HOUR] as const;

export const FULL_SCHEDULE_ATTEMPTS = RETRY_DELAYS_MS.length;
/** Orders of tier 5m stop after attempt 4 (about four minutes). */
export const SHORT_TIER_ATTEMPTS = 4;
/** A receiver answering later than this (on the clock) has failed the attempt. */
export const ANSWER_LIMIT_MS = 10 * SECOND;

/**
 * Attempts per endpoint for an event: every event of a 5m order stops after attempt 4. Some order
 * events (order.expired, order.reclaimed, order.refunded) carry no `tier`; for them the caller passes
 * the tier of the order they name (`orderTier`), so the cut-off follows the order, not the event shape.
 */
export function maxAttemptsFor(data: unknown, orderTier: string | null = null): number {
  const own = data && typeof data === 'object' ? (data as { tier?: unknown }).tier : undefined;
  const tier = typeof own === 'string' ? own : orderTier;
  return tier === '5m' ? SHORT_TIER_ATTEMPTS : FULL_SCHEDULE_ATTEMPTS;
}

/** The order an event is about, if any (its tier decides the cut-off when the event has none). */
export function orderIdOf(data: unknown): string | null {
  const id = data && typeof data === 'object' ? (data as { order_id?: unknown }).order_id : undefined;
  return typeof id === 'string' && id ? id : null;
}

/*
 * The per-order delivery order a receiver can rely on (README, "Delivery order"): events of one order
 * (of one account, for events about no order) get their FIRST attempt in event order, but an earlier
 * event holds a later one back only while it waits for that first attempt on an active endpoint or has
 * an attempt in flight. Once an attempt of the earlier event has failed, later events go ahead and the
 * earlier one is retried on its own schedule, so a failing event never stalls the rest of its order.
 * The dispatcher's claim query (services/dispatcher/store.ts, sendCycle) applies it.
 */

export type AttemptResult = { ok: true } | { ok: false };

export interface DeliveryPosition {
  /** Attempts made on the current endpoint, the one just finished included. */
  targetAttempt: number;
  maxAttempts: number;
  /** Whether the delivery already moved to the other endpoint once. */
  failedOver: boolean;
  /** The account's other endpoint subscribed to this event, if any. */
  alternateEndpointId: string | null;
}

export type NextStep =
  | { state: 'delivered'; deliveredAt: number }
  | { state: 'failed'; nextAttemptAt: number }
  | { state: 'failed'; failoverTo: string; nextAttemptAt: number }
  | { state: 'dead' };

/** What follows an attempt: delivered, a retry at the scheduled time, a move to the backup, or dead. */
export function afterAttempt(position: DeliveryPosition, result: AttemptResult, now: number): NextStep {
  if (result.ok) return { state: 'delivered', deliveredAt: now };
  if (position.targetAttempt < position.maxAttempts) {
    return { state: 'failed', nextAttemptAt: now + RETRY_DELAYS_MS[position.targetAttempt] };
  }
  if (!position.failedOver && position.alternateEndpointId) {
    // Same event id, same delivery, schedule restarted: the backup's attempt 1 is immediate.
    return { state: 'failed', failoverTo: position.alternateEndpointId, nextAttemptAt: now + RETRY_DELAYS_MS[0] };
  }
  return { state: 'dead' };
}
