/**
 * Promo rules as plain functions over plain data (spec sections 2 "Promo resources", 3 "Promo states").
 * Shared by the processor's handler (the deciding copy: one writer, so the daily cap is exact), the API's
 * GET /v1/promo and its early eligibility answers.
 */
import type { ErrorSlug } from '../errors';

export const DAY_MS = 86_400_000;

/** A network's promo as `ops promo set` stores it; `on: false` after `ops promo off`. */
export interface PromoConfig {
  on: boolean;
  tokenId: string;
  tokenName: string;
  /** Issuer of the token: holders who received it from here are eligible. */
  dropAddress: string;
  startsAt: number | null;
  endsAt: number | null;
  capPerDay: number | null;
  grantEnergy: number;
  grantSeconds: number;
  forwardAddress: string | null;
}

export type RedemptionStatus = 'granting' | 'delegated' | 'failed';
export type RedeemMethod = 'signature' | 'forward';

export interface Redemption {
  address: string;
  method: RedeemMethod;
  redeemedAt: number;
  /** UTC day (YYYY-MM-DD) the claim counts against. */
  day: string;
  status: RedemptionStatus;
  energy: number;
  durationSeconds: number;
  /** End of the delegation, set once delegated. */
  expiresAt: number | null;
  delegateTxId: string | null;
  delegateSignedTx: string | null;
  poolAddress: string | null;
  stakeSun: bigint | null;
  undelegateTxId: string | null;
  undelegateSignedTx: string | null;
  returnedAt: number | null;
  failure: string | null;
}

export type PromoState = 'active' | 'cap_reached_today' | 'not_started' | 'ended' | 'off';

export const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
export const nextUtcMidnight = (ms: number): number => (Math.floor(ms / DAY_MS) + 1) * DAY_MS;

export function promoState(config: PromoConfig | null, now: number, grantsToday: number): PromoState {
  if (!config || !config.on) return 'off';
  if (config.startsAt !== null && now < config.startsAt) return 'not_started';
  if (config.endsAt !== null && now >= config.endsAt) return 'ended';
  if (config.capPerDay !== null && grantsToday >= config.capPerDay) return 'cap_reached_today';
  return 'active';
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** The Promo resource; with state `off` every field after `state` is null. */
export function promoView(network: string, config: PromoConfig | null, now: number, grantsToday: number): Record<string, unknown> {
  const state = promoState(config, now, grantsToday);
  if (state === 'off' || !config) {
    return { network, state, starts_at: null, ends_at: null, cap_per_day: null, left_today: null, resets_at: null, grant: null, token: null, forward_address: null };
  }
  return {
    network,
    state,
    starts_at: iso(config.startsAt),
    ends_at: iso(config.endsAt),
    cap_per_day: config.capPerDay,
    left_today: config.capPerDay === null ? null : Math.max(0, config.capPerDay - grantsToday),
    resets_at: config.capPerDay === null ? null : iso(nextUtcMidnight(now)),
    grant: { resource: 'energy', amount: config.grantEnergy, duration_seconds: config.grantSeconds },
    token: { id: config.tokenId, name: config.tokenName },
    forward_address: config.forwardAddress,
  };
}

/**
 * Why a claim cannot be accepted, or null. Order of checks: the promo must be running (3040), the
 * address must not have claimed (3039), then the day's cap (3040: unavailable today).
 * Eligibility (received the token from the drop) is a chain fact checked before the claim is appended.
 */
export function claimRefusal(config: PromoConfig | null, now: number, grantsToday: number, existing: Redemption | undefined): ErrorSlug | null {
  const state = promoState(config, now, grantsToday);
  if (state === 'off' || state === 'not_started' || state === 'ended') return 'promo_redeem_unavailable';
  if (existing) return 'promo_already_redeemed';
  if (state === 'cap_reached_today') return 'promo_redeem_unavailable';
  return null;
}

/** PromoRedemption as the API shows it. */
export function redemptionView(r: Redemption): Record<string, unknown> {
  return { address: r.address, method: r.method, redeemed_at: iso(r.redeemedAt), status: r.status, energy: r.energy, expires_at: iso(r.expiresAt) };
}

/** A wallet's test-network promo code (PromoDevCode). */
export interface DevCode {
  address: string;
  code: string;
  feeBps: number;
  durationDays: number;
  activateBy: number | null;
  issuedAt: number;
  enteredAccountId: string | null;
  enteredAt: number | null;
}

/** Spec: a 3 % routing fee for 30 days from entry; entered within 30 days of issue. */
export const DEV_CODE_FEE_BPS = 300;
export const DEV_CODE_DAYS = 30;

export function devCodeView(c: DevCode): Record<string, unknown> {
  return { code: c.code, fee_pct: c.feeBps / 100, duration_days: c.durationDays, activate_by: iso(c.activateBy), used: c.enteredAt !== null };
}

/** Why an account cannot enter this code now, or null. */
export function entryRefusal(c: DevCode | undefined, now: number): ErrorSlug | null {
  if (!c) return 'not_found';
  if (c.enteredAt !== null) return 'promo_already_redeemed';
  if (c.activateBy !== null && now > c.activateBy) return 'promo_redeem_unavailable';
  return null;
}
