/**
 * JSON.stringify's text for the plain data the devnet prints (objects, arrays, strings, numbers, booleans,
 * null, undefined, toJSON), with bigints printed by `bigint`. JSON.stringify with a replacer function leaves
 * V8's fast path and calls back into JavaScript for every key; the node's answers and its block lines are
 * bigint-heavy, and that was the main thread's largest own cost after the socket writes.
 */
export function stringify(value: unknown, bigint: (v: bigint) => string): string {
  return write(value, '', bigint) ?? 'undefined';
}

// Object keys are a small set of field names: their quoted text is worked out once.
const quotedKeys = new Map<string, string>();
const MAX_QUOTED_KEYS = 10_000;

function quotedKey(k: string): string {
  let quoted = quotedKeys.get(k);
  if (quoted === undefined) {
    quoted = JSON.stringify(k);
    if (quotedKeys.size < MAX_QUOTED_KEYS) quotedKeys.set(k, quoted);
  }
  return quoted;
}

/** The text of `value` under `key`, or undefined where JSON.stringify leaves the member out. */
function write(value: unknown, key: string, bigint: (v: bigint) => string): string | undefined {
  if (value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    value = (value as { toJSON: (key: string) => unknown }).toJSON(key);
  }
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      return bigint(value);
    case 'object': {
      if (value === null) return 'null';
      if (Array.isArray(value)) {
        let out = '[';
        for (let i = 0; i < value.length; i++) out += (i ? ',' : '') + (write(value[i], String(i), bigint) ?? 'null');
        return out + ']';
      }
      let out = '{';
      let first = true;
      for (const k of Object.keys(value)) {
        const text = write((value as Record<string, unknown>)[k], k, bigint);
        if (text === undefined) continue;
        out += (first ? '' : ',') + quotedKey(k) + ':' + text;
        first = false;
      }
      return out + '}';
    }
    default:
      return undefined; // undefined, functions, symbols
  }
}
