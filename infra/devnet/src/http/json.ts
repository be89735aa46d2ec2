const MARK = '\u0001';

/**
 * JSON as java-tron prints it: int64 fields (bigints here) as bare numbers with every digit kept,
 * or as strings when the client asked for int64_as_string.
 */
export function toJson(value: unknown, int64AsString = false): string {
  const text = JSON.stringify(value, (_key, v) => (typeof v === 'bigint' ? (int64AsString ? v.toString() : MARK + v.toString()) : v));
  return int64AsString ? text : text.replace(/"\\u0001(-?\d+)"/g, '$1');
}
