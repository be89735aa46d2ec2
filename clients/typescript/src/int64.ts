/**
 * Lossless JSON for int64 values (every `*_sun`): an integer a double holds exactly stays a `number`; one
 * beyond ±(2^53 − 1) becomes a `bigint` with every digit, never a rounded `number`. Requests serialise a
 * `bigint` as a plain JSON number. Uses the JSON.parse reviver's source text (Node 22+, current browsers),
 * so no parser of our own and no dependency.
 */

/** What an int64 field holds after parsing: see the module comment. */
export type Int64 = number | bigint;

type ReviverContext = { source?: string };
type SourceReviver = (this: unknown, key: string, value: unknown, context?: ReviverContext) => unknown;

const INTEGER_TEXT = /^-?\d+$/;

const revive: SourceReviver = (_key, value, context) => {
  if (typeof value !== 'number' || Number.isSafeInteger(value) || context?.source === undefined) return value;
  return INTEGER_TEXT.test(context.source) ? BigInt(context.source) : value;
};

/** True when this runtime hands a reviver the number's source text (without it, precision cannot be kept). */
export const losslessParsingSupported: boolean = (() => {
  let seen: string | undefined;
  JSON.parse('1', ((_k: string, v: unknown, c?: ReviverContext) => ((seen = c?.source), v)) as Parameters<typeof JSON.parse>[1]);
  return seen === '1';
})();

/**
 * JSON.parse with int64 values exact (see the module comment). On a runtime without the reviver's source
 * text (Node before 22, an old browser) this is plain JSON.parse: exact up to 2^53 only.
 */
export function parseJson(text: string): unknown {
  return losslessParsingSupported ? JSON.parse(text, revive as Parameters<typeof JSON.parse>[1]) : JSON.parse(text);
}

const rawJson = (JSON as unknown as { rawJSON?: (text: string) => unknown }).rawJSON;

/** JSON.stringify that writes a bigint as a JSON number (not a string, not a TypeError). */
export function stringifyJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v !== 'bigint') return v;
    if (!rawJson) throw new Error('@energy-rental/client needs Node 22+ (JSON.rawJSON) to send a bigint');
    return rawJson(v.toString());
  });
}
