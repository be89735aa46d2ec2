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
 * as a field path (`items[3].receiver`), or null when there is none.
 */
export function unstorableField(value: unknown, path = ''): string | null {
  if (typeof value === 'string') return storableText(value) ? null : path || 'body';
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = unstorableField(value[i], `${path}[${i}]`);
      if (found !== null) return found;
    }
    return null;
  }
  if (value !== null && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      const field = path ? `${path}.${key}` : key;
      // The name itself is echoed back in details.field, so its bad code points are replaced.
      if (!storableText(key)) return field.replace(new RegExp(UNSTORABLE.source, 'g'), '\uFFFD');
      const found = unstorableField(inner, field);
      if (found !== null) return found;
    }
  }
  return null;
}
