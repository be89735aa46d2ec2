/**
 * JSON that keeps int64 exact: integers beyond 2^53 parse as bigint, and bigint values stringify as
 * plain JSON numbers (every `*_sun` field is an int64 on the wire).
 */
import { isSafeNumber, parse, stringify } from 'lossless-json';

function parseNumber(text: string): number | bigint {
  if (isSafeNumber(text)) return Number(text);
  if (/^-?\d+$/.test(text)) return BigInt(text);
  // A fraction that a double cannot hold exactly: no money field is fractional, so keep the nearest value.
  return Number(text);
}

export function parseJson(text: string): unknown {
  return parse(text, null, parseNumber);
}

export function stringifyJson(value: unknown): string {
  const text = stringify(value);
  if (text === undefined) throw new TypeError('value cannot be represented as JSON');
  return text;
}
