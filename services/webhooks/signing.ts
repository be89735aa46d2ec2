/**
 * What a delivery carries (spec sections 5 rule 6 and 6): the envelope, its exact bytes, the signature
 * over those bytes and the headers. Generic over event types: `data` is passed through as decoded.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { stringifyJson } from '../platform/json';
import { toIso } from '../platform/clock';

export const REPLAY_WINDOW_SECONDS = 300;

export interface EnvelopeSource {
  eventId: string;
  type: string;
  eventVersion: number;
  /** When the event happened (ms); kept across retries. */
  createdAt: number;
  accountId: string;
  network: 'mainnet' | 'nile';
  data: unknown;
}

/** The envelope as sent, in the spec's field order; int64 values stay exact JSON numbers. */
export function envelopeBytes(source: EnvelopeSource, test: boolean): Buffer {
  return Buffer.from(
    stringifyJson({
      event: source.type,
      event_id: source.eventId,
      event_version: source.eventVersion,
      created_at: toIso(source.createdAt),
      account_id: source.accountId,
      network: source.network,
      test,
      data: source.data,
    }),
    'utf8',
  );
}

/** X-API-SIGN = base64(HMAC_SHA256(secret, timestamp + "." + raw_body)). */
export function signPayload(secret: string, timestampSeconds: number, rawBody: Buffer): string {
  return createHmac('sha256', secret).update(`${timestampSeconds}.`).update(rawBody).digest('base64');
}

/** A receiver's check: signature first (constant time), then the timestamp window. */
export function verifySignature(
  secret: string, headers: { timestamp: string | undefined; signature: string | undefined }, rawBody: Buffer, nowSeconds: number,
): boolean {
  if (!headers.timestamp || !headers.signature || !/^\d{1,12}$/.test(headers.timestamp)) return false;
  const expected = Buffer.from(signPayload(secret, Number(headers.timestamp), rawBody));
  const given = Buffer.from(headers.signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return false;
  return Math.abs(nowSeconds - Number(headers.timestamp)) <= REPLAY_WINDOW_SECONDS;
}

export function newEndpointSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

export interface DeliveryHeaderInput {
  eventId: string;
  eventType: string;
  eventVersion: number;
  deliveryId: string;
  attempt: number;
  timestampSeconds: number;
  signature: string;
  userAgent: string;
}

export function deliveryHeaders(h: DeliveryHeaderInput): Record<string, string> {
  return {
    'Content-Type': 'application/json; charset=utf-8',
    'X-Event-Id': h.eventId,
    'X-Event-Type': h.eventType,
    'X-Event-Version': String(h.eventVersion),
    'X-Delivery-Id': h.deliveryId,
    'X-Delivery-Attempt': String(h.attempt),
    'X-API-TIMESTAMP': String(h.timestampSeconds),
    'X-API-SIGN': h.signature,
    'User-Agent': h.userAgent,
  };
}

/** Everything one attempt sends: the body bytes and the signed headers. */
export function signedRequest(
  secret: string, body: Buffer, input: Omit<DeliveryHeaderInput, 'signature'>,
): { body: Buffer; headers: Record<string, string> } {
  const signature = signPayload(secret, input.timestampSeconds, body);
  return { body, headers: { ...deliveryHeaders({ ...input, signature }), 'Content-Length': String(body.length) } };
}

/** Events of one order stay in order; events without an order are ordered per account. */
export function streamKeyOf(accountId: string, data: unknown): string {
  const orderId = data && typeof data === 'object' ? (data as { order_id?: unknown }).order_id : undefined;
  return typeof orderId === 'string' && orderId ? `order:${orderId}` : `account:${accountId}`;
}
