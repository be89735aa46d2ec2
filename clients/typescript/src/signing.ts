/**
 * Request signing (contract.md section 2):
 *   X-API-SIGN = base64(HMAC_SHA256(secret, TIMESTAMP + "." + METHOD + "." + PATH + "." + BODY))
 * PATH is the request target exactly as sent (query string included), BODY the raw body ('' when none).
 */
import { createHmac } from 'node:crypto';

export interface ApiKey {
  id: string;
  secret: string;
}

/** Seconds are enough for reads; milliseconds (13 digits) let the same write go out twice in one second. */
export type TimestampUnit = 'seconds' | 'milliseconds';

export function signature(secret: string, timestamp: string, method: string, target: string, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${method.toUpperCase()}.${target}.${body}`, 'utf8').digest('base64');
}

export function signedHeaders(key: ApiKey, timestamp: string, method: string, target: string, body: string): Record<string, string> {
  return { 'X-API-KEY': key.id, 'X-API-TIMESTAMP': timestamp, 'X-API-SIGN': signature(key.secret, timestamp, method, target, body) };
}

export { requestTarget } from './retrying-fetch';

/**
 * Timestamps for one client. A write signature is accepted once, so two identical writes (a retry, or
 * the same order placed twice at once) must not share a timestamp: in milliseconds every timestamp is
 * at least the last plus one; in seconds a write takes the next second no write of this client used, and
 * waits for it so the timestamps do not run ahead of the clock.
 * Reads may repeat a signature, so in seconds they simply use the current second.
 */
export class Stamper {
  private last = 0;
  private lastWriteSecond = 0;

  constructor(private readonly unit: TimestampUnit, private readonly now: () => number = Date.now) {}

  /** The timestamp to sign with, and how long to wait before sending it. */
  next(write: boolean): { timestamp: string; waitMs: number } {
    const nowMs = this.now();
    if (this.unit === 'milliseconds') {
      // A few ms ahead of the clock is well inside the ±300 s window: no wait.
      this.last = Math.max(nowMs, this.last + 1);
      return { timestamp: String(this.last), waitMs: 0 };
    }
    const current = Math.floor(nowMs / 1000);
    if (!write) return { timestamp: String(current), waitMs: 0 };
    this.lastWriteSecond = Math.max(current, this.lastWriteSecond + 1);
    return { timestamp: String(this.lastWriteSecond), waitMs: Math.max(0, this.lastWriteSecond * 1000 - nowMs) };
  }
}
