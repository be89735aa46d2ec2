/**
 * A token transfer as a request names it (POST /v1/estimates items, `for_transfer` of an order): the token
 * (`USDT` or a TRC-20 address) and the amount (an integer string or an integer, up to 256 bits). Anything
 * else is the caller's 400 naming the field.
 */
import type { TransferRef } from '../domain/estimates';
import type { Config } from '../platform/config';
import { ApiError } from './errors';
import { checkAddress } from './identity-deps';

const UINT256_MAX = (1n << 256n) - 1n;

/** An integer string or an integer (a bigint past 2^53), 0..2^256-1. */
export function tokenAmount(value: unknown, field: string): bigint {
  let amount: bigint | null = null;
  if (typeof value === 'string' && /^[0-9]{1,78}$/.test(value)) amount = BigInt(value);
  else if (typeof value === 'number' && Number.isSafeInteger(value)) amount = BigInt(value);
  else if (typeof value === 'bigint') amount = value;
  if (amount === null || amount < 0n || amount > UINT256_MAX) {
    throw new ApiError('invalid_request', `\`${field}\` must be a non-negative integer (an integer string or an integer) of at most 256 bits.`, { field });
  }
  return amount;
}

/** The token's contract address: `USDT` (or nothing) is the network's USDT contract. */
export function tokenContract(cfg: Pick<Config, 'USDT_CONTRACT'>, value: unknown, field: string): string {
  if (value === undefined || value === 'USDT') {
    if (!cfg.USDT_CONTRACT) throw new ApiError('invalid_request', 'This deployment has no USDT contract; give the token address.', { field });
    return cfg.USDT_CONTRACT;
  }
  if (typeof value !== 'string' || !/^T[1-9A-HJ-NP-Za-km-z]{33}$/.test(value)) {
    throw new ApiError('invalid_request', `\`${field}\` must be \`USDT\` or a TRC-20 contract address.`, { field });
  }
  return checkAddress(value, field);
}

/** A request's `for_transfer` ({to, amount, token}) checked: the receiver's address, a uint256, the token contract. */
export function transferRefOf(cfg: Pick<Config, 'USDT_CONTRACT'>, raw: { to: string; amount: unknown; token?: unknown }, field: string): TransferRef {
  return {
    to: checkAddress(raw.to, `${field}.to`),
    amount: tokenAmount(raw.amount, `${field}.amount`).toString(),
    token: tokenContract(cfg, raw.token, `${field}.token`),
  };
}
