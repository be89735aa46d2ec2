/**
 * Signed API-key requests (contract.md section 2):
 *   X-API-SIGN = base64(HMAC_SHA256(secret, TIMESTAMP + "." + METHOD + "." + PATH + "." + BODY))
 * PATH is the request target as sent (query included); BODY the raw bytes, empty when there is none.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_WINDOW_S = 300;

export function canonicalRequest(timestamp: string, method: string, path: string, body: Buffer | string): Buffer {
  return Buffer.concat([Buffer.from(`${timestamp}.${method.toUpperCase()}.${path}.`, 'utf8'), Buffer.from(body)]);
}

/** The HMAC over canonicalRequest's bytes, fed in two parts: the body is hashed where it lies, not copied. */
export function signRequest(secret: string, timestamp: string, method: string, path: string, body: Buffer | string = ''): string {
  const hmac = createHmac('sha256', secret).update(`${timestamp}.${method.toUpperCase()}.${path}.`, 'utf8');
  return (typeof body === 'string' ? hmac.update(body, 'utf8') : hmac.update(body)).digest('base64');
}

/** Constant-time comparison of the expected signature with the one sent. */
export function signatureMatches(expected: string, sent: string): boolean {
  const a = Buffer.from(expected, 'utf8');
  const b = Buffer.from(sent, 'utf8');
  // Compare against itself when lengths differ so the time does not depend on where they differ.
  return timingSafeEqual(a, a.length === b.length ? b : a) && a.length === b.length;
}

/**
 * X-API-TIMESTAMP is Unix seconds (up to 12 digits) or Unix milliseconds (exactly 13 digits, for clients
 * that send the same request more than once a second); either must be within the window of `nowMs`.
 */
export function timestampInWindow(timestamp: string, nowMs: number): boolean {
  if (/^\d{13}$/.test(timestamp)) return Math.abs(Number(timestamp) - nowMs) <= SIGNATURE_WINDOW_S * 1000;
  if (!/^\d{1,12}$/.test(timestamp)) return false;
  return Math.abs(Number(timestamp) - Math.floor(nowMs / 1000)) <= SIGNATURE_WINDOW_S;
}

/** Signatures of these methods are single use inside the window; GET and HEAD may be repeated (polling). */
export function signatureSingleUse(method: string): boolean {
  return method !== 'GET' && method !== 'HEAD';
}

/** A random token with a prefix, and the SHA-256 under which it is stored. */
export function newToken(prefix: string, bytes = 24): string {
  return prefix + randomBytes(bytes).toString('base64url');
}

export function tokenHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
