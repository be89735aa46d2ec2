/**
 * When a request may be sent again, and after how long. Pure: the transport (client.ts) asks after each
 * attempt. A retry must never make a second order: writes are repeated only when the server said
 * nothing happened (429) or when the request carries its own idempotency (Idempotency-Key header,
 * client_order_id or client_subscription_id in the body), so the server answers the original.
 */
export interface RetryPolicy {
  /** Attempts in all, the first included. */
  maxAttempts: number;
  /** Backoff when the server gives no Retry-After: base × 2^(attempt-1), capped. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** A Retry-After longer than this is not waited for: the error is returned instead. */
  maxRetryAfterMs: number;
  /**
   * Spread, 0..1, so a fleet does not retry in lockstep: each backoff is shortened by a random part of up to
   * this fraction. A Retry-After is waited exactly: the server chose it, and an earlier retry is refused.
   */
  jitter: number;
}

export const defaultRetryPolicy: RetryPolicy = { maxAttempts: 4, baseDelayMs: 250, maxDelayMs: 5_000, maxRetryAfterMs: 60_000, jitter: 0.5 };

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const IDEMPOTENCY_FIELDS = ['client_order_id', 'client_subscription_id'];

/** True when sending the request twice has the effect of sending it once. */
export function isReplaySafe(method: string, headers: Headers, body: string): boolean {
  if (SAFE_METHODS.has(method.toUpperCase())) return true;
  if (headers.get('idempotency-key')) return true;
  if (!body) return false;
  try {
    const parsed: unknown = JSON.parse(body);
    return typeof parsed === 'object' && parsed !== null && IDEMPOTENCY_FIELDS.some((f) => typeof (parsed as Record<string, unknown>)[f] === 'string');
  } catch {
    return false;
  }
}

/** Retry-After as milliseconds: delta seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value: string | null, nowMs: number): number | null {
  if (value === null || value.trim() === '') return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs);
}

export type AttemptOutcome = { kind: 'response'; status: number; retryAfter: string | null } | { kind: 'network_error' };

/**
 * Milliseconds to wait before the next attempt, or null: do not retry. `attempt` counts from 1. `random`
 * (0..1, the transport passes Math.random) places the wait inside the policy's jitter; 0 gives the bare
 * backoff or Retry-After.
 */
export function retryDelay(
  outcome: AttemptOutcome, attempt: number, replaySafe: boolean, policy: RetryPolicy, nowMs: number, random: () => number = () => 0,
): number | null {
  if (attempt >= policy.maxAttempts) return null;
  const jitter = Math.min(1, Math.max(0, policy.jitter ?? 0));
  const bare = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  const backoff = Math.round(bare * (1 - jitter * random()));
  if (outcome.kind === 'network_error') return replaySafe ? backoff : null;
  const { status } = outcome;
  // 429: the budget was spent before anything happened, whatever the method.
  const retryable = status === 429 || (replaySafe && (status === 502 || status === 503 || status === 504));
  if (!retryable) return null;
  const asked = parseRetryAfter(outcome.retryAfter, nowMs);
  if (asked === null) return backoff;
  return asked > policy.maxRetryAfterMs ? null : asked;
}
