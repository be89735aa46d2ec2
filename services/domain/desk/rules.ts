/**
 * The transfer desk (contract.md section 12): a wallet buys energy with one TRX payment to the desk's
 * address, no account. Pure rules: the desk's terms from the price table, what a payment buys, and why one
 * is returned. The processor decides from the facts the watcher put in the command, so a replay decides
 * the same.
 */
import { derivedId } from '../ids';
import { tierSeconds, type PriceTable, type Tier } from '../pricing';

/** What GET /v1/transfer-desk publishes, and what a payment is sized by. */
export interface DeskTerms {
  tier: Tier;
  durationSeconds: number;
  /** The energy row's price for the tier plus the desk's markup. */
  priceSunPerUnit: bigint;
  minSun: bigint;
  maxSun: bigint;
  /** The row's bounds: no desk order outside them. */
  minAmount: number;
  maxAmount: number;
  activationFeeSun: bigint;
}

/** Energy is sold in whole thousands; the rest of the payment is the desk's rounding. */
export const DESK_ENERGY_STEP = 1_000;

/**
 * Bandwidth bytes charged for the return (a signed TransferContract with no memo plus java-tron's 64-byte
 * result allowance), rounded up so the desk never pays more than it kept for it.
 */
export const RETURN_BANDWIDTH_BYTES = 280n;

export function deskAccountId(network: 'mainnet' | 'nile', brand: string): string {
  return derivedId('account', 'transfer-desk', brand, network);
}

/** The desk's terms, or why the configuration cannot sell (config.ts refuses to start on it). */
/** The bounds of a desk whose DESK_MIN_SUN / DESK_MAX_SUN are not set, each narrowed to what the tier's row sells. */
export const DESK_DEFAULT_MIN_SUN = 1_000_000n;
export const DESK_DEFAULT_MAX_SUN = 500_000_000n;

/**
 * The desk's terms, or why the configuration cannot sell (config.ts refuses to start on it). Bounds not
 * configured follow the price table (a deployment, or a test, with a narrower energy row still sells);
 * configured bounds that cannot buy the row's min..max amount are refused.
 */
export function deskTerms(
  table: PriceTable, s: { tier: Tier; markupSun: bigint; minSun?: bigint; maxSun?: bigint },
): DeskTerms {
  const row = table.rows.find((r) => r.resource === 'energy' && r.tier === s.tier);
  if (!row || !row.available) throw new Error(`DESK_TIER: the energy tier ${s.tier} is not sold`);
  const priceSunPerUnit = row.price_sun_per_unit + s.markupSun;
  const step = BigInt(DESK_ENERGY_STEP);
  const leastBuyingMin = ((BigInt(row.min_amount) + step - 1n) / step) * step * priceSunPerUnit;
  const mostBuyingMax = (BigInt(row.max_amount) / step) * step * priceSunPerUnit;
  const minSun = s.minSun ?? (DESK_DEFAULT_MIN_SUN > leastBuyingMin ? DESK_DEFAULT_MIN_SUN : leastBuyingMin);
  const maxSun = s.maxSun ?? (DESK_DEFAULT_MAX_SUN < mostBuyingMax ? DESK_DEFAULT_MAX_SUN : mostBuyingMax);
  const terms: DeskTerms = {
    tier: s.tier, durationSeconds: tierSeconds[s.tier], priceSunPerUnit, minSun, maxSun,
    minAmount: row.min_amount, maxAmount: row.max_amount, activationFeeSun: table.activationFeeSun,
  };
  if (maxSun < minSun) throw new Error('DESK_MAX_SUN: below DESK_MIN_SUN');
  if (energyFor(minSun, priceSunPerUnit) < row.min_amount) throw new Error(`DESK_MIN_SUN: buys less than the row's min_amount ${row.min_amount}`);
  if (energyFor(maxSun, priceSunPerUnit) > row.max_amount) throw new Error(`DESK_MAX_SUN: buys more than the row's max_amount ${row.max_amount}`);
  return terms;
}

/** floor(sun / price), rounded down to a multiple of DESK_ENERGY_STEP. */
export function energyFor(sun: bigint, priceSunPerUnit: bigint): number {
  if (sun <= 0n) return 0;
  const units = sun / priceSunPerUnit;
  return Number(units - (units % BigInt(DESK_ENERGY_STEP)));
}

/** Why a payment goes back: out of range, a receiver it cannot activate, or its order failed to deliver. */
export type DeskRefusal = 'below_min' | 'above_max' | 'receiver_inactive' | 'undelivered';

export type DeskDecision =
  | { kind: 'order'; amount: number; activateSun: bigint; paySun: bigint }
  | { kind: 'return'; reason: DeskRefusal; message: string };

export interface PaymentFacts {
  amountSun: bigint;
  receiver: string;
  receiverActive: boolean;
  terms: DeskTerms;
}

/**
 * A payment in range buys floor(V / price) energy in thousands for the receiver; an inactive receiver is
 * activated out of the payment first, and when what is left buys less than the row's minimum the payment
 * cannot be delivered: returned, like one out of range.
 */
export function decideDeskPayment(f: PaymentFacts): DeskDecision {
  const { terms } = f;
  if (f.amountSun < terms.minSun) return { kind: 'return', reason: 'below_min', message: `The payment of ${f.amountSun} SUN is below the desk's min_sun ${terms.minSun}.` };
  if (f.amountSun > terms.maxSun) return { kind: 'return', reason: 'above_max', message: `The payment of ${f.amountSun} SUN is above the desk's max_sun ${terms.maxSun}.` };
  const activateSun = f.receiverActive ? 0n : terms.activationFeeSun;
  const amount = energyFor(f.amountSun - activateSun, terms.priceSunPerUnit);
  if (amount < terms.minAmount) {
    return {
      kind: 'return', reason: 'receiver_inactive',
      message: `The receiver ${f.receiver} is not activated and ${f.amountSun} SUN cannot pay its activation (${activateSun} SUN) and ${terms.minAmount} energy.`,
    };
  }
  // total = V: the remainder below a thousand energy stays in pay_amount_sun (the desk's rounding).
  return { kind: 'order', amount, activateSun, paySun: f.amountSun - activateSun };
}

/** What goes back for a returned payment: V less the bandwidth the return burns (never below zero). */
export function refundOf(amountSun: bigint, returnFeeSun: bigint): bigint {
  return amountSun > returnFeeSun ? amountSun - returnFeeSun : 0n;
}

/**
 * `ordered`: an order was placed. `returning`: refused, the return not yet on chain. `returned`: the
 * return landed. `recorded`: not a plain TRX transfer (TRC-20, TRX sent by a contract): kept for support,
 * never credited or returned by the desk.
 */
export type DeskPaymentStatus = 'ordered' | 'returning' | 'returned' | 'recorded';

/** A payment to the desk as the chain shows it: what the watcher's command and the payment row share. */
export interface DeskReceipt {
  /** The watcher's receipt id: the txid for a TRX transfer (deposits.ts depositIdOf). */
  paymentId: string;
  txid: string;
  logIndex: number;
  asset: 'TRX' | 'USDT';
  /** receipts.ts ReceiptKind: only a plain `transfer` of TRX buys energy. */
  kind: string;
  sender: string | null;
  amount: bigint;
  memo: string | null;
  /** The memo's address when it is one, else the sender; null when the desk cannot deliver (not a TRX transfer). */
  receiver: string | null;
  blockNumber: number;
  blockTimestamp: number;
}

export interface DeskPayment extends DeskReceipt {
  status: DeskPaymentStatus;
  orderId: string | null;
  refusal: DeskRefusal | null;
  refundSun: bigint;
  /** What a return of this payment burns (the command's returnFeeSun), kept for a return owed later. */
  returnFeeSun: bigint;
  returnTxId: string | null;
  returnSignedTx: string | null;
  returnedAt: number | null;
  createdAt: number;
  updatedAt: number;
}
