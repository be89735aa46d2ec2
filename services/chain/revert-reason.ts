/**
 * The reason a reverted contract call gives: Solidity's `Error(string)` (selector 08c379a0, then the
 * ABI-encoded string) in the call's return data (java-tron's constant_result / contractResult). Pure.
 */
const ERROR_SELECTOR = '08c379a0';

/** The reason text, or null when the return data is not an Error(string) (an empty revert, a Panic). */
export function revertReason(returnDataHex: string): string | null {
  const hex = returnDataHex.replace(/^0x/, '').toLowerCase();
  if (!hex.startsWith(ERROR_SELECTOR)) return null;
  const body = hex.slice(8);
  if (body.length < 128) return null;
  const offset = Number.parseInt(body.slice(0, 64), 16) * 2;
  const length = Number.parseInt(body.slice(offset, offset + 64), 16) * 2;
  const text = body.slice(offset + 64, offset + 64 + length);
  if (!Number.isSafeInteger(length) || text.length !== length) return null;
  return Buffer.from(text, 'hex').toString('utf8');
}
