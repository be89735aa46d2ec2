/**
 * Deposits: what the watcher saw on chain, and the rules that decide whether it is credited, held or
 * waits for a rate. Pure: every input (amounts, rate, spread, bounds, block time) travels in the command.
 *
 * USDT pricing: `rateSun` is SUN per 1 USDT before the spread (what rate_now shows); the credited rate is
 * floor(rateSun × (10,000 − spread_bps) / 10,000) SUN per USDT, and a deposit of `u` USDT base units
 * (6 decimals) credits floor(u × creditedRate / 1,000,000) SUN.
 */
import type { Account } from './account';

export type DepositAsset = 'TRX' | 'USDT';

/** Seen but not credited: `pending_rate` waits for a rate; the others wait for support (ops credit-held). */
export const heldStatuses = ['pending_rate', 'held_below_min', 'held_for_review', 'unclaimed_residual', 'held_retired_address'] as const;
export type HeldStatus = (typeof heldStatuses)[number];
export type DepositStatus = 'credited' | HeldStatus;

/** The statuses the ledger's first page shows for USDT deposits seen but not credited (spec LedgerEntry). */
export const ledgerHeldStatuses: readonly DepositStatus[] = ['pending_rate', 'held_below_min', 'held_for_review'];

export const USDT_UNIT = 1_000_000n;
const BPS = 10_000n;

/** One transfer to a deposit address: a TRX transfer (logIndex -1), TRX an internal transaction moved (≤ -2) or one USDT Transfer log. */
export interface DepositFacts {
  depositId: string;
  asset: DepositAsset;
  /** The deposit address it was sent to (current or retired). */
  address: string;
  sender: string | null;
  txid: string;
  logIndex: number;
  blockNumber: number;
  /** Block time, ms. */
  blockTimestamp: number;
  /** SUN for TRX, USDT base units for USDT. */
  amount: bigint;
  confirmationsRequired: number;
}

/** The pricing in force when the watcher saw the deposit (USDT only; null fields for TRX). */
export interface DepositPricing {
  /** SUN per 1 USDT before the spread; null when no rate was available. */
  rateSun: bigint | null;
  rateSource: string | null;
  spreadBps: number;
  usdtMin: bigint;
  usdtMax: bigint;
  minDepositSun: bigint;
}

export interface Deposit extends DepositFacts {
  accountId: string;
  status: DepositStatus;
  journalId: string | null;
  /** TRX credited (SUN); 0 until credited. */
  amountSun: bigint;
  /** SUN per 1 USDT after the spread, as credited; null for TRX and uncredited rows. */
  rate: bigint | null;
  rateSource: string | null;
  spreadBps: number | null;
  seenAt: number;
  creditedAt: number | null;
}

/**
 * The deposit id of a receipt: `txid` for the transaction's own TRX transfer (logIndex -1), `txid:N` for its
 * N-th log (a USDT Transfer), `txid:internal:I` for TRX moved by its I-th internal transaction (logIndex
 * -2 - I, see internalLogIndex).
 */
export function depositIdOf(txid: string, logIndex: number): string {
  if (logIndex >= 0) return `${txid}:${logIndex}`;
  if (logIndex === -1) return txid;
  return `${txid}:internal:${-2 - logIndex}`;
}

/** The logIndex recorded for TRX moved by internal transaction `index` of a transaction. */
export const internalLogIndex = (index: number): number => -2 - index;

export function rateAfterSpread(rateSun: bigint, spreadBps: number): bigint {
  return (rateSun * (BPS - BigInt(spreadBps))) / BPS;
}

export function sunForUsdt(usdtBase: bigint, creditedRate: bigint): bigint {
  return (usdtBase * creditedRate) / USDT_UNIT;
}

/** USDT base units as a decimal string ("12.5", "0.000001"). */
export function usdtDecimal(base: bigint): string {
  const whole = base / USDT_UNIT;
  const frac = (base % USDT_UNIT).toString().padStart(6, '0').replace(/0+$/, '');
  return frac ? `${whole}.${frac}` : whole.toString();
}

/** SUN per USDT as TRX per USDT, a decimal string. */
export const trxPerUsdtDecimal = usdtDecimal;

/** A decimal TRX-per-USDT string as SUN per USDT (at most 6 decimals; more are cut). */
export function sunPerUsdtFromDecimal(decimal: string): bigint {
  const [whole, frac = ''] = decimal.split('.');
  return BigInt(whole) * USDT_UNIT + BigInt((frac + '000000').slice(0, 6));
}

const Q192 = 1n << 192n;

/**
 * SUN per 1 USDT from a Uniswap v3 pool's slot0 sqrtPriceX96 (price = token1 units per token0 unit,
 * sqrtPriceX96 = sqrt(price) × 2^96), for a USDT/WTRX pool whose tokens both have 6 decimals.
 */
export function sunPerUsdtFromSqrtPrice(sqrtPriceX96: bigint, usdtIsToken0: boolean): bigint | null {
  if (sqrtPriceX96 <= 0n) return null;
  const squared = sqrtPriceX96 * sqrtPriceX96;
  return usdtIsToken0 ? (squared * USDT_UNIT) / Q192 : (Q192 * USDT_UNIT) / squared;
}

/** Whether a deposit to `address` in a block at `blockTimestamp` belongs to the account and still credits. */
export function addressStanding(account: Account, address: string, blockTimestamp: number): 'current' | 'retired_in_window' | 'retired_past_window' | 'unknown' {
  if (account.depositAddress === address) return 'current';
  const retired = account.retiredDepositAddresses.find((r) => r.address === address);
  if (!retired) return 'unknown';
  return blockTimestamp <= retired.creditedUntil ? 'retired_in_window' : 'retired_past_window';
}

export type CreditDecision =
  | { kind: 'credit'; amountSun: bigint; rate: bigint | null; rateSource: string | null; spreadBps: number | null }
  | { kind: 'hold'; status: HeldStatus };

/** What the first sight of a deposit does, by the rules of spec sections 2, 6 (rule 7) and 8. */
export function decideDeposit(facts: DepositFacts, pricing: DepositPricing, standing: ReturnType<typeof addressStanding>): CreditDecision {
  if (standing === 'retired_past_window') return { kind: 'hold', status: 'held_retired_address' };
  if (facts.asset === 'TRX') {
    if (facts.amount < pricing.minDepositSun) return { kind: 'hold', status: 'unclaimed_residual' };
    return { kind: 'credit', amountSun: facts.amount, rate: null, rateSource: null, spreadBps: null };
  }
  if (facts.amount < pricing.usdtMin) return { kind: 'hold', status: 'held_below_min' };
  if (facts.amount > pricing.usdtMax) return { kind: 'hold', status: 'held_for_review' };
  if (pricing.rateSun === null) return { kind: 'hold', status: 'pending_rate' };
  return usdtCredit(facts.amount, pricing.rateSun, pricing.rateSource, pricing.spreadBps);
}

export function usdtCredit(amount: bigint, rateSun: bigint, rateSource: string | null, spreadBps: number): CreditDecision & { kind: 'credit' } {
  const rate = rateAfterSpread(rateSun, spreadBps);
  return { kind: 'credit', amountSun: sunForUsdt(amount, rate), rate, rateSource, spreadBps };
}

/** The indicative USDT rate the API shows with a deposit address (services/deposits/rate.ts reads it). */
export interface RateNow {
  trx_per_usdt: string;
  source: 'dex_v3' | 'fixed_env';
  at: string;
}

/**
 * Where the indicative USDT rate comes from; the ledger issue plugs in the cached DEX/fixed rate.
 * Until then (or when no rate is available) `rate_now` is null, as the spec allows.
 */
export type RateSource = () => Promise<RateNow | null>;
