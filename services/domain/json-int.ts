/**
 * An int64 for a JSON view: a number when it is exact as one (the same JSON text), so a view whose
 * integers all fit is written on stringifyJson's fast path; the bigint otherwise.
 */
export function jsonInt(value: bigint): number | bigint {
  return value <= MAX_SAFE && value >= -MAX_SAFE ? Number(value) : value;
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
