/**
 * The routing fee (docs/routing-fee.md): the markup on an order routed to the third-party provider (its
 * fills are `market`/`deep`, never the pool's `instant`). Pure: the API reads the account's volume and its
 * entered dev code, this decides the basis points in force and the fee in SUN.
 */
import type { Order, Supplier } from './orders/rules';

export const BPS = 10_000n;
const DAY_MS = 86_400_000;

/** A volume tier: from `minVolumeSun` of charged orders in the last VOLUME_WINDOW_DAYS, `feeBps` applies. */
export interface VolumeTier {
  minVolumeSun: bigint;
  feeBps: number;
}

export interface RoutingFeeTable {
  /** The network's base rate (no volume, no code). */
  baseBps: number;
  /** Ascending by volume; the highest tier the account reaches applies (if lower than the base). */
  tiers: VolumeTier[];
}

/** The volume a tier is measured on: charged provider- and pool-filled orders of the last 30 days. */
export const VOLUME_WINDOW_DAYS = 30;

const TRX = 1_000_000n;

/** Defaults per network; ROUTING_FEE_BPS and ROUTING_FEE_TIERS replace them. */
const defaults: Record<'mainnet' | 'nile', RoutingFeeTable> = {
  mainnet: { baseBps: 1_000, tiers: [{ minVolumeSun: 10_000n * TRX, feeBps: 700 }, { minVolumeSun: 100_000n * TRX, feeBps: 500 }] },
  nile: { baseBps: 1_000, tiers: [{ minVolumeSun: 10_000n * TRX, feeBps: 700 }, { minVolumeSun: 100_000n * TRX, feeBps: 500 }] },
};

function checkBps(bps: number, what: string): number {
  if (!Number.isInteger(bps) || bps < 0 || bps > 10_000) throw new Error(`${what}: fee_bps must be an integer 0..10000, got ${bps}`);
  return bps;
}

/**
 * The network's table: `configuredBps` (ROUTING_FEE_BPS) and `configuredTiers` (ROUTING_FEE_TIERS, a JSON
 * array of `{min_volume_sun, fee_bps}`, parsed by platform/config.ts) or the defaults.
 */
export function routingFeeTable(network: 'mainnet' | 'nile', configuredBps?: number, configuredTiers?: unknown): RoutingFeeTable {
  const baseBps = checkBps(configuredBps ?? defaults[network].baseBps, 'ROUTING_FEE_BPS');
  if (configuredTiers === undefined) return { baseBps, tiers: defaults[network].tiers };
  const rows = configuredTiers as Array<{ min_volume_sun: number | string | bigint; fee_bps: number }>;
  if (!Array.isArray(rows)) throw new Error('ROUTING_FEE_TIERS: a JSON array of {min_volume_sun, fee_bps}');
  const tiers = rows
    .map((r) => ({ minVolumeSun: BigInt(r.min_volume_sun), feeBps: checkBps(r.fee_bps, 'ROUTING_FEE_TIERS') }))
    .sort((a, b) => (a.minVolumeSun < b.minVolumeSun ? -1 : a.minVolumeSun > b.minVolumeSun ? 1 : 0));
  return { baseBps, tiers };
}

/** An entered dev code: its cap runs `durationDays` from `enteredAt`. */
export interface EnteredCode {
  feeBps: number;
  durationDays: number;
  enteredAt: number;
}

export function codeInForce(code: EnteredCode | null, at: number): boolean {
  return code !== null && at >= code.enteredAt && at < code.enteredAt + code.durationDays * DAY_MS;
}

export type FeeSource = 'none' | 'base' | 'volume_tier' | 'promo_code';

export interface RoutingFee {
  bps: number;
  source: FeeSource;
}

/**
 * The rate for an order placed at `at`: none for the pool; for the provider the lowest of the base rate,
 * the account's volume tier and an entered dev code still in force ("the lower of the code and the
 * account's volume tier applies"). A tie keeps the earlier source (base, then tier, then code).
 */
export function routingFeeBps(supplier: Supplier, table: RoutingFeeTable, volumeSun: bigint, code: EnteredCode | null, at: number): RoutingFee {
  if (supplier !== 'provider') return { bps: 0, source: 'none' };
  let fee: RoutingFee = { bps: table.baseBps, source: 'base' };
  for (const tier of table.tiers) {
    if (volumeSun >= tier.minVolumeSun && tier.feeBps < fee.bps) fee = { bps: tier.feeBps, source: 'volume_tier' };
  }
  if (code && codeInForce(code, at) && code.feeBps < fee.bps) fee = { bps: code.feeBps, source: 'promo_code' };
  return fee;
}

/** The markup on the resource's pay amount (never on the activation fee), rounded up to the whole SUN. */
export function routingFeeSun(baseSun: bigint, bps: number): bigint {
  if (baseSun <= 0n || bps <= 0) return 0n;
  return (baseSun * BigInt(bps) + BPS - 1n) / BPS;
}

/**
 * The routing fee inside an order's pay amount: what it pays above `amount x price_sun_per_unit` (the API
 * and the batch executor add the fee there and nowhere else). Zero for pool orders and activations.
 */
export function routingFeeOf(order: Pick<Order, 'supplier' | 'paySun' | 'priceSunPerUnit' | 'amount'>): bigint {
  if (order.supplier !== 'provider' || order.priceSunPerUnit === null || order.amount === null) return 0n;
  const fee = order.paySun - order.priceSunPerUnit * BigInt(order.amount);
  return fee > 0n ? fee : 0n;
}

/** The fee's share of a pro-rata refund for what was not delivered (rounded down, as the refund is). */
export function routingFeeRefunded(fee: bigint, amount: number | null, deliveredAmount: number): bigint {
  if (fee === 0n || amount === null || amount === 0) return 0n;
  return (fee * BigInt(amount - deliveredAmount)) / BigInt(amount);
}
