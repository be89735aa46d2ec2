/**
 * Pieces of opaque list cursors, read back with bounds: a cursor is client input like any other, so a
 * crafted one (a year -10000 instant, a sequence past int64) answers 400 2000 `cursor` instead of
 * reaching PostgreSQL as a value it cannot hold.
 */
import { ApiError } from './errors';

const INT64_MAX = 9_223_372_036_854_775_807n;
/** 0001-01-01 .. 9999-12-31: what every timestamp column holds and every Date prints as ISO. */
const MIN_MS = Date.parse('0001-01-01T00:00:00.000Z');
const MAX_MS = Date.parse('9999-12-31T23:59:59.999Z');

export function invalidCursor(): ApiError {
  return new ApiError('invalid_request', 'The cursor is not valid.', { field: 'cursor' });
}

/** An instant from a cursor (ISO text, or epoch milliseconds as a number), inside the storable range. */
export function cursorInstant(value: string | number): Date {
  const ms = typeof value === 'number' ? value : Date.parse(value);
  if (!Number.isFinite(ms) || ms < MIN_MS || ms > MAX_MS) throw invalidCursor();
  return new Date(ms);
}

/** A non-negative int64 sequence number from a cursor. */
export function cursorSeq(text: string): bigint {
  if (!/^\d{1,19}$/.test(text)) throw invalidCursor();
  const seq = BigInt(text);
  if (seq > INT64_MAX) throw invalidCursor();
  return seq;
}

/** A page position of a list sorted by created_at then id. */
export interface CreatedCursor {
  createdAt: Date;
  id: string;
}

/**
 * The cursor of the orders, batches and subscriptions lists: base64url of `<epoch ms>:<id>`, the id
 * `<prefix>_` and 24 hex digits; anything else decodes to 400 `cursor`.
 */
export function createdCursorCodec(prefix: string): { encode(c: CreatedCursor): string; decode(text: string): CreatedCursor } {
  const pattern = new RegExp(`^(\\d{1,15}):(${prefix}_[0-9a-f]{24})$`);
  return {
    encode: (c) => Buffer.from(`${c.createdAt.getTime()}:${c.id}`).toString('base64url'),
    decode: (text) => {
      const m = pattern.exec(Buffer.from(text, 'base64url').toString('utf8'));
      if (!m) throw invalidCursor();
      return { createdAt: cursorInstant(Number(m[1])), id: m[2] };
    },
  };
}
