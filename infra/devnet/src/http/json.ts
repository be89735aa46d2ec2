import { stringify } from '../json-text';

const bare = (v: bigint) => v.toString();
const quoted = (v: bigint) => `"${v}"`;

/**
 * JSON as java-tron prints it: int64 fields (bigints here) as bare numbers with every digit kept,
 * or as strings when the client asked for int64_as_string.
 */
export function toJson(value: unknown, int64AsString = false): string {
  return stringify(value, int64AsString ? quoted : bare);
}
