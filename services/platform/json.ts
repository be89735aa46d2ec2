/**
 * JSON that keeps int64 exact: integers beyond 2^53 parse as bigint, and bigint values stringify as
 * plain JSON numbers (every `*_sun` field is an int64 on the wire).
 */
import { isSafeNumber, parse } from 'lossless-json';

const SIXTEEN_DIGITS = /\d{16}/;

function parseNumber(text: string): number | bigint {
  if (isSafeNumber(text)) return Number(text);
  if (/^-?\d+$/.test(text)) return BigInt(text);
  // A fraction that a double cannot hold exactly: no money field is fractional, so keep the nearest value.
  return Number(text);
}

/** lossless-json's reading: the reference, and the answer (or the error) whenever the fast path below is not sure. */
function parseLossless(text: string): unknown {
  return parse(text, null, parseNumber);
}

/** Every number by parseNumber from its source text: exactly the values lossless-json gives. */
const reviveNumbers = (_key: string, value: unknown, context?: { source?: string }): unknown =>
  (typeof value === 'number' && context?.source !== undefined ? parseNumber(context.source) : value);

/** Keys of every object in a parsed value. */
function keyCount(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  if (Array.isArray(value)) {
    let n = 0;
    for (const v of value) n += keyCount(v);
    return n;
  }
  let n = 0;
  for (const k in value) n += 1 + keyCount((value as Record<string, unknown>)[k]);
  return n;
}

/**
 * Colons outside strings: in valid JSON, one per key written (a key written twice counts twice). Only
 * called on text the engine parsed, so every string is closed. indexOf, not a loop over charCodeAt (faster;
 * figures in bench/README.md, "Figures formerly quoted in code comments").
 */
function keysWritten(text: string): number {
  let n = 0;
  let at = 0;
  for (;;) {
    const open = text.indexOf('"', at);
    const stop = open < 0 ? text.length : open;
    for (let c = text.indexOf(':', at); c >= 0 && c < stop; c = text.indexOf(':', c + 1)) n++;
    if (open < 0) return n;
    // The closing quote: the first one after an even run of backslashes (an escaped quote never ends it).
    let close = text.indexOf('"', open + 1);
    for (;;) {
      let b = close - 1;
      while (text.charCodeAt(b) === 0x5c) b--;
      if ((close - 1 - b) % 2 === 0) break;
      close = text.indexOf('"', close + 1);
    }
    at = close + 1;
  }
}

/**
 * Strict JSON with int64 exact, for untrusted text (request bodies): what lossless-json reads, duplicate
 * keys refused. The engine's parser reads it (several times faster on a batch request than lossless-json:
 * bench/batch-post-parts.ts, figures in bench/README.md, "Figures formerly quoted in code comments");
 * lossless-json decides whenever the engine
 * refuses the text or a key was written twice (the engine keeps the last, lossless-json refuses unless
 * both values are equal), so the answer, and every error, stay lossless-json's.
 */
export function parseJson(text: string): unknown {
  let value: unknown;
  try {
    // Without a run of 16 digits every number is what Number() gives (see parseOwnJson): no reviver needed.
    value = SIXTEEN_DIGITS.test(text) ? JSON.parse(text, reviveNumbers) : JSON.parse(text);
  } catch {
    return parseLossless(text);
  }
  return keyCount(value) === keysWritten(text) ? value : parseLossless(text);
}

/** A number's source text as the value parseJson gives it (same rule), for the native parser below. */
function exactNumber(value: number, source: string): number | bigint {
  return Number.isSafeInteger(value) || !/^-?\d+$/.test(source) ? value : BigInt(source);
}

/**
 * parseJson's result for text this service wrote itself (command answers, its own rows), with the
 * engine's parser: several times faster than lossless-json on the 40 KB answer of a 100-receiver batch.
 * Not for request bodies: parseJson refuses duplicate keys, which untrusted input needs.
 */
export function parseOwnJson(text: string): unknown {
  // Without a run of 16 digits no integer can be beyond 2^53 (15 digits are always exact): the reviver,
  // most of the parse's cost, has nothing to do.
  if (!SIXTEEN_DIGITS.test(text)) return JSON.parse(text);
  return JSON.parse(text, (_key, value, context?: { source?: string }) =>
    typeof value === 'number' && context?.source !== undefined ? exactNumber(value, context.source) : value);
}

const rawBigint = (_key: string, value: unknown): unknown =>
  typeof value === 'bigint' ? (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON(value.toString()) : value;

/**
 * Same text as lossless-json's stringify (bigint as a plain JSON number), with the engine's serializer.
 * A value without a bigint goes through it without the replacer, the engine's fast path (less than half the
 * CPU on a large batch answer: bench/README.md, "Figures formerly quoted in code comments"); the first
 * bigint met throws, and the value is
 * written again with the replacer (what is thrown away is the text up to that bigint).
 */
export function stringifyJson(value: unknown): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (err) {
    if (!(err instanceof TypeError)) throw err;
    text = JSON.stringify(value, rawBigint);
  }
  if (text === undefined) throw new TypeError('value cannot be represented as JSON');
  return text;
}

/**
 * stringifyJson's text for a value that is known to hold bigints (the domain's commands, events, orders'
 * allocations, command results): straight to the replacer. Trying the engine's fast path first costs a
 * partial serialization and a throw on every such value, three times the replacer's cost on an order
 * event (bench/README.md, "JSON with bigints: the replacer first").
 */
export function stringifyBigintJson(value: unknown): string {
  const text = JSON.stringify(value, rawBigint);
  if (text === undefined) throw new TypeError('value cannot be represented as JSON');
  return text;
}

export { jsonInt } from '../domain/json-int';
