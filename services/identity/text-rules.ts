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
