/** Money is integers only: SUN (1 TRX = 1,000,000 SUN) and USDT base units, as bigint. */
export const SUN_PER_TRX = 1_000_000n;
export const INT64_MAX = 9_223_372_036_854_775_807n;
export const INT64_MIN = -9_223_372_036_854_775_808n;

export function isInt64(value: bigint): boolean {
  return value >= INT64_MIN && value <= INT64_MAX;
}

/** Parses a base-10 integer string or safe integer number into bigint; throws on anything else. */
export function toBigInt(value: unknown): bigint {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  if (typeof value === 'string' && /^-?\d{1,19}$/.test(value)) return BigInt(value);
  throw new TypeError(`not an integer amount: ${String(value)}`);
}
