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

/** Attempts per endpoint for an event: the 5m tier cuts the schedule after attempt 4. */
export function maxAttemptsFor(data: unknown): number {
  const tier = data && typeof data === 'object' ? (data as { tier?: unknown }).tier : undefined;
  return tier === '5m' ? SHORT_TIER_ATTEMPTS : FULL_SCHEDULE_ATTEMPTS;
}

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
