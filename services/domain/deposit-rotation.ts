/** Support rotation of deposit addresses: the limits the deposit-address read publishes (`rotation`). */
import type { Account } from './account';

const DAY_MS = 86_400_000;

export const rotationPolicy = {
  by: 'support',
  min_interval_days: 30,
  max_per_window: 3,
  window_days: 365,
  retired_credit_days: 30,
} as const;

/** The earliest instant a rotation is allowed at `now`, or null when it is allowed now. */
export function rotationBlockedUntil(account: Account, now: number): number | null {
  if (account.depositIssuedAt === null) return null;
  const rotations = account.retiredDepositAddresses.map((r) => r.retiredAt).sort((a, b) => b - a);
  const last = rotations[0];
  const candidates: number[] = [];
  if (last !== undefined && now < last + rotationPolicy.min_interval_days * DAY_MS) {
    candidates.push(last + rotationPolicy.min_interval_days * DAY_MS);
  }
  const windowStart = now - rotationPolicy.window_days * DAY_MS;
  const inWindow = rotations.filter((t) => t > windowStart);
  if (inWindow.length >= rotationPolicy.max_per_window) {
    // The oldest of the last `max_per_window` rotations must leave the window first.
    candidates.push(inWindow[rotationPolicy.max_per_window - 1] + rotationPolicy.window_days * DAY_MS);
  }
  return candidates.length ? Math.max(...candidates) : null;
}

export function retiredCreditUntil(retiredAt: number): number {
  return retiredAt + rotationPolicy.retired_credit_days * DAY_MS;
}
