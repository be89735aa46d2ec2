/**
 * JSON that keeps int64 exact: integers beyond 2^53 parse as bigint, and bigint values stringify as
 * plain JSON numbers (every `*_sun` field is an int64 on the wire).
 */
import { isSafeNumber, parse } from 'lossless-json';

function parseNumber(text: string): number | bigint {
  if (isSafeNumber(text)) return Number(text);
  if (/^-?\d+$/.test(text)) return BigInt(text);
  // A fraction that a double cannot hold exactly: no money field is fractional, so keep the nearest value.
  return Number(text);
}

export function parseJson(text: string): unknown {
  return parse(text, null, parseNumber);
}

/** A number's source text as the value parseJson gives it (same rule), for the native parser below. */
function exactNumber(value: number, source: string): number | bigint {
  return Number.isSafeInteger(value) || !/^-?\d+$/.test(source) ? value : BigInt(source);
}

const SIXTEEN_DIGITS = /\d{16}/;

/**
 * parseJson's result for text this service wrote itself (command answers, its own rows), with the
 * engine's parser: several times faster than lossless-json on the 40 KB answer of a 100-receiver batch.
 * Not for request bodies: lossless-json also refuses duplicate keys, which untrusted input needs.
 */
export function parseOwnJson(text: string): unknown {
  // Without a run of 16 digits no integer can be beyond 2^53 (15 digits are always exact): the reviver,
  // most of the parse's cost, has nothing to do.
  if (!SIXTEEN_DIGITS.test(text)) return JSON.parse(text);
  return JSON.parse(text, (_key, value, context?: { source?: string }) =>
    typeof value === 'number' && context?.source !== undefined ? exactNumber(value, context.source) : value);
}

const rawJSON = (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON;

const rawBigint = (_key: string, value: unknown): unknown => (typeof value === 'bigint' ? rawJSON(value.toString()) : value);

/**
 * The value with every bigint inside plain objects and arrays replaced by raw JSON text (copies made only
 * along the paths that hold one), so the engine serializes it without a replacer: a replacer is a call per
 * key and costs about a third of a 40 KB serialization. Other objects (a Date, a class) are left as they are.
 */
function withRawBigints(value: unknown): unknown {
  if (typeof value === 'bigint') return rawJSON(value.toString());
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let k = 0; k < value.length; k += 1) {
      const inner = value[k];
      const raw = withRawBigints(inner);
      if (raw !== inner) (out ??= value.slice())[k] = raw;
    }
    return out ?? value;
  }
  const proto = Object.getPrototypeOf(value);
  // A toJSON decides for itself; a `__proto__` key cannot be assigned on a copy: the replacer handles both.
  if ((proto !== Object.prototype && proto !== null) || typeof (value as { toJSON?: unknown }).toJSON === 'function' || Object.hasOwn(value, '__proto__')) return value;
  let out: Record<string, unknown> | undefined;
  for (const key of Object.keys(value)) {
    const inner = (value as Record<string, unknown>)[key];
    const raw = withRawBigints(inner);
    if (raw !== inner) (out ??= { ...(value as Record<string, unknown>) })[key] = raw;
  }
  return out ?? value;
}

/** Same text as lossless-json's stringify (bigint as a plain JSON number), with the engine's serializer. */
export function stringifyJson(value: unknown): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(withRawBigints(value));
  } catch (err) {
    // A bigint where withRawBigints does not look (inside a class instance, or a toJSON's result).
    if (!(err instanceof TypeError)) throw err;
    text = JSON.stringify(value, rawBigint);
  }
  if (text === undefined) throw new TypeError('value cannot be represented as JSON');
  return text;
}
