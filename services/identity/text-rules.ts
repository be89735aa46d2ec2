/** Display-name and label rules: trimmed, not blank, no control characters, bounded length. */

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

export type TextCheck = { ok: true; value: string } | { ok: false; reason: string };

export function cleanTitle(raw: string, max: number): TextCheck {
  const value = raw.trim();
  if (value.length === 0) return { ok: false, reason: 'must not be blank' };
  if ([...value].length > max) return { ok: false, reason: `must be at most ${max} characters after trimming` };
  if (CONTROL.test(value)) return { ok: false, reason: 'must not contain control characters' };
  return { ok: true, value };
}

/**
 * Whether PostgreSQL can store this text: it refuses U+0000 in `text` and `jsonb`, and a lone UTF-16
 * surrogate has no UTF-8 form at all. Every string a request carries is checked at the edge, so such a
 * value answers 400 2000 instead of failing a query (or a processor batch) later.
 */
// eslint-disable-next-line no-control-regex
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function storableText(value: string): boolean {
  return !UNSTORABLE.test(value);
}

/**
 * The first place in a parsed JSON value (object keys included) holding text PostgreSQL cannot store,
 * as a field path (`items[3].receiver`), or null when there is none. The path is built only when a place
 * is found: the processor checks every command, and building every field's path cost a string per field
 * (a 100-item batch: about a thousand) on the common, clean path.
 */
export function unstorableField(value: unknown, path = ''): string | null {
  const at = unstorablePlace(value);
  if (at === null) return null;
  let field = path;
  for (const step of at) field = typeof step === 'number' ? `${field}[${step}]` : field ? `${field}.${step}` : step;
  return field || 'body';
}

/** The steps (array index, object key) to the first unstorable text; a bad key comes last, its bad code points replaced. */
function unstorablePlace(value: unknown): Array<string | number> | null {
  if (typeof value === 'string') return storableText(value) ? null : [];
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = unstorablePlace(value[i]);
      if (found !== null) return (found.unshift(i), found);
    }
    return null;
  }
  if (value !== null && typeof value === 'object') {
    for (const key of Object.keys(value)) {
      // The name itself is echoed back in details.field, so its bad code points are replaced.
      if (!storableText(key)) return [key.replace(new RegExp(UNSTORABLE.source, 'g'), '\uFFFD')];
      const found = unstorablePlace((value as Record<string, unknown>)[key]);
      if (found !== null) return (found.unshift(key), found);
    }
  }
  return null;
}
