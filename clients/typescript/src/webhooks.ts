/**
 * The reference webhook receiver check (README "Receiving webhooks"): the signature over the exact bytes
 * received, compared in constant time, the timestamp within ±300 s, then the body parsed (int64 exact)
 * and deduplicated on the signed body's `event_id`. The `X-Event-Id` header is not signed, so a replay
 * with a fresh header must not count as a new event.
 *
 * Signature: X-API-SIGN = base64(HMAC_SHA256(secret, X-API-TIMESTAMP + "." + raw_body)), where the HMAC
 * key is the endpoint secret's UTF-8 text as shown, `whsec_` included (not Standard Webhooks: see the
 * README for how the two differ).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { parseJson } from './int64';

export const WEBHOOK_TOLERANCE_SECONDS = 300;

/** The envelope every delivery carries (spec section 6). `data` depends on `event`. */
export interface WebhookEvent {
  event: string;
  event_id: string;
  event_version: number;
  created_at: string;
  account_id: string;
  network: 'mainnet' | 'nile';
  test: boolean;
  data: Record<string, unknown>;
}

export type WebhookFailure = 'missing_headers' | 'bad_signature' | 'timestamp_outside_window' | 'bad_body';

export class WebhookVerificationError extends Error {
  constructor(readonly reason: WebhookFailure, message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

/** Header lookup over what frameworks hand you: node's IncomingHttpHeaders, a Fetch Headers, a plain record. */
export type HeaderSource = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderSource, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value[0] : value;
}

export interface VerifyOptions {
  /** One secret, or several while you rotate (each endpoint, primary and backup, has its own). */
  secret: string | string[];
  /** Unix seconds; default the wall clock. */
  nowSeconds?: number;
  toleranceSeconds?: number;
}

function signedBy(secret: string, timestamp: string, rawBody: Uint8Array, given: Buffer): boolean {
  const expected = createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest();
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The verified, parsed event; throws WebhookVerificationError otherwise. Parses only after the checks. */
export function verifyWebhook(headers: HeaderSource, rawBody: Uint8Array | string, options: VerifyOptions): WebhookEvent {
  const timestamp = header(headers, 'x-api-timestamp');
  const signature = header(headers, 'x-api-sign');
  if (!timestamp || !signature || !/^\d{1,12}$/.test(timestamp)) {
    throw new WebhookVerificationError('missing_headers', 'X-API-TIMESTAMP (Unix seconds) and X-API-SIGN are required');
  }
  const bytes = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody;
  const given = Buffer.from(signature, 'base64');
  const secrets = Array.isArray(options.secret) ? options.secret : [options.secret];
  // Every secret is tried (no early exit), so the time taken does not tell which one matched.
  const matched = secrets.map((s) => signedBy(s, timestamp, bytes, given)).includes(true);
  if (!matched) throw new WebhookVerificationError('bad_signature', 'the signature does not match the body');
  const now = options.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - Number(timestamp)) > (options.toleranceSeconds ?? WEBHOOK_TOLERANCE_SECONDS)) {
    throw new WebhookVerificationError('timestamp_outside_window', 'the timestamp is outside the replay window');
  }
  let event: WebhookEvent;
  try {
    event = parseJson(Buffer.from(bytes).toString('utf8')) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError('bad_body', 'the signed body is not JSON');
  }
  if (typeof event?.event_id !== 'string' || typeof event.event !== 'string') throw new WebhookVerificationError('bad_body', 'the signed body is not an event envelope');
  return event;
}

/**
 * Remembers handled event ids. In production use a table with a unique key on the event id (insert, and a
 * conflict means "seen"); the default keeps the last `capacity` ids in memory, enough for retries and the
 * backup's copy within one process.
 */
export interface EventIdStore {
  /** Records the id; true when it was new, false when it had been recorded before. */
  add(eventId: string): boolean | Promise<boolean>;
}

export function memoryEventIdStore(capacity = 100_000): EventIdStore {
  const seen = new Set<string>();
  return {
    add(eventId) {
      if (seen.has(eventId)) return false;
      seen.add(eventId);
      // Sets iterate in insertion order: the first is the oldest.
      if (seen.size > capacity) seen.delete(seen.values().next().value as string);
      return true;
    },
  };
}

export interface WebhookReceiverOptions extends Omit<VerifyOptions, 'nowSeconds'> {
  store?: EventIdStore;
  now?: () => number;
}

export type Receipt = { duplicate: false; event: WebhookEvent } | { duplicate: true; event: WebhookEvent };

/**
 * verifyWebhook then dedup on the signed `event_id`: `duplicate: true` for a retry, the backup's copy or a
 * replay, which you acknowledge with 2xx and do not act on again. Throws WebhookVerificationError (answer 401).
 */
export function webhookReceiver(options: WebhookReceiverOptions): (headers: HeaderSource, rawBody: Uint8Array | string) => Promise<Receipt> {
  const store = options.store ?? memoryEventIdStore();
  const now = options.now ?? Date.now;
  return async (headers, rawBody) => {
    const event = verifyWebhook(headers, rawBody, { ...options, nowSeconds: Math.floor(now() / 1000) });
    return (await store.add(event.event_id)) ? { duplicate: false, event } : { duplicate: true, event };
  };
}
