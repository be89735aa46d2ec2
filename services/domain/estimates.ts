/**
 * Estimates (contract.md section 11): what one token transfer needs (energy and bandwidth), what its
 * sender has, what it would burn without renting, the fee limit to send it with, and the orders that
 * cover the shortfall at the live price. Pure: the chain facts come in (services/chain/transfer-facts.ts).
 */
import { errorCatalog } from './errors';
import type { PriceTable, Tier } from './pricing';

/** The tier an estimate's orders take: the shortest, enough to send the transfer right away. */
export const ESTIMATE_TIER: Tier = '5m';
/** Headroom on the fee limit over the simulated energy (20 %), then rounded up to a whole TRX. */
const FEE_LIMIT_HEADROOM_PCT = 120n;
const SUN_PER_TRX = 1_000_000n;

/** java-tron's chain fees the estimate prices burns with (getchainparameters). */
export interface ChainFees {
  /** getEnergyFee: SUN per unit of energy burned. */
  energyFeeSun: bigint;
  /** getTransactionFee: SUN per byte of bandwidth burned. */
  bandwidthFeeSun: bigint;
  /** getFreeNetLimit: free bandwidth per day of an activated account. */
  freeNetLimit: bigint;
}

/** The sender's resources now (getaccountresource); `activated: false` when the address has no account. */
export interface SenderResources {
  activated: boolean;
  energyLimit: bigint;
  energyUsed: bigint;
  freeNetLimit: bigint;
  freeNetUsed: bigint;
  netLimit: bigint;
  netUsed: bigint;
}

/** The node's simulation of the exact call (triggerconstantcontract). */
export interface Simulation {
  ok: boolean;
  /** energy_used, the dynamic energy penalty included. */
  energyUsed: bigint;
  /** energy_penalty (0 when the node reports none). */
  energyPenalty: bigint;
  /** The revert reason (Error(string)) or the node's message when the call fails. */
  failure: string | null;
  /** Bytes of the unsigned transaction's raw data as the node builds it (no fee limit set). */
  rawDataBytes: number;
}

export interface TransferFacts {
  simulation: Simulation;
  sender: SenderResources;
  receiverTokenBalance: bigint;
}

/**
 * What the API read for a `for_transfer` order when it arrived: the transfer, the node's simulation of it
 * (energy needed, penalty included) and the sender's free energy, the energy row's bounds and the routing fee
 * in force. The processor sizes and prices the order from these alone, so a replay buys the same amount.
 */
export interface ForTransferFacts {
  to: string;
  /** Token amount, base units (decimal string: up to 256 bits). */
  amount: string;
  token: string;
  energyNeeded: number;
  energyAvailable: number;
  minAmount: number;
  maxAmount: number;
  routingFeeBps: number;
}

/** A transfer a `for_transfer` order or batch item names: receiver, amount (base units, decimal string), token contract. */
export interface TransferRef {
  to: string;
  amount: string;
  token: string;
}

export interface TransferItem {
  from: string;
  to: string;
  /** Token amount in base units. */
  amount: bigint;
  /** The TRC-20 contract (Base58). */
  token: string;
}

export interface EstimateOrder {
  resource: 'energy' | 'bandwidth';
  amount: number;
  tier: Tier;
  receiver: string;
  activate: boolean;
}

export interface Estimate {
  from: string;
  to: string;
  token: string;
  amount: string;
  ok: boolean;
  error: { code: number; slug: 'transfer_would_fail'; message: string } | null;
  energy_needed: number;
  energy_penalty: number;
  receiver_holds_token: boolean;
  energy_available: number;
  energy_to_rent: number;
  bandwidth_needed: number;
  bandwidth_available: number;
  bandwidth_to_rent: number;
  sender_activated: boolean;
  fee_limit_sun: bigint;
  burn_sun_without_rental: bigint;
  orders: EstimateOrder[];
  total_amount_sun: bigint;
}

const max0 = (v: bigint) => (v > 0n ? v : 0n);
const ceilDiv = (a: bigint, b: bigint) => (a + b - 1n) / b;

function varintSize(n: bigint): number {
  let size = 1;
  for (let v = n >> 7n; v > 0n; v >>= 7n) size += 1;
  return size;
}

/** A length-delimited protobuf field of `length` bytes with a one-byte tag. */
const delimitedSize = (length: number) => 1 + varintSize(BigInt(length)) + length;
/** raw_data.fee_limit is field 18 (a two-byte tag) and a varint. */
const feeLimitFieldSize = (feeLimit: bigint) => (feeLimit > 0n ? 2 + varintSize(feeLimit) : 0);
/** One 65-byte signature, and the room java-tron adds per contract for its result (MAX_RESULT_SIZE_IN_TX). */
const SIGNATURE_FIELD = delimitedSize(65);
const RESULT_ROOM = 64;

/**
 * The bandwidth a signed transaction pays for, as java-tron's BandwidthProcessor counts it: the serialized
 * transaction without its result (raw data with the fee limit set, one signature) plus 64 bytes.
 */
export function signedTransferBytes(rawDataBytes: number, feeLimit: bigint): number {
  return delimitedSize(rawDataBytes + feeLimitFieldSize(feeLimit)) + SIGNATURE_FIELD + RESULT_ROOM;
}

/** Energy × fee plus 20 %, rounded up to a whole TRX (at least 1 TRX). */
export function recommendedFeeLimit(energyNeeded: bigint, energyFeeSun: bigint): bigint {
  const sun = ceilDiv(energyNeeded * energyFeeSun * FEE_LIMIT_HEADROOM_PCT, 100n);
  return (sun > 0n ? ceilDiv(sun, SUN_PER_TRX) : 1n) * SUN_PER_TRX;
}

function rowOf(table: PriceTable, resource: 'energy' | 'bandwidth') {
  return table.rows.find((r) => r.resource === resource && r.tier === ESTIMATE_TIER) ?? null;
}

/** A shortfall raised to the price row's minimum order (0 stays 0). */
function toRent(short: bigint, minAmount: number): bigint {
  if (short <= 0n) return 0n;
  return short < BigInt(minAmount) ? BigInt(minAmount) : short;
}

export interface EnergyShortfall {
  energyNeeded: bigint;
  energyAvailable: bigint;
  /** What an order must deliver (0: nothing short), raised to the energy row's minimum. */
  energyToRent: bigint;
}

/** The energy part alone: what `for_transfer` orders are sized by. */
export function energyShortfall(facts: Pick<TransferFacts, 'simulation' | 'sender'>, energyMinAmount: number): EnergyShortfall {
  const energyNeeded = facts.simulation.energyUsed;
  const energyAvailable = max0(facts.sender.energyLimit - facts.sender.energyUsed);
  return { energyNeeded, energyAvailable, energyToRent: toRent(energyNeeded - energyAvailable, energyMinAmount) };
}

/** The amount a `for_transfer` order buys from the facts its command carries (0: nothing is short). */
export function forTransferAmount(f: Pick<ForTransferFacts, 'energyNeeded' | 'energyAvailable' | 'minAmount'>): number {
  return Number(toRent(BigInt(f.energyNeeded) - BigInt(f.energyAvailable), f.minAmount));
}

/**
 * What a sender has left as the request's earlier transfers from it would leave it: energy (shared by both
 * scenarios: renting covers exactly the shortfall, so either way nothing of it is left after a short
 * transfer), and bandwidth in each scenario (`rented`: a short transfer is topped up with staked
 * bandwidth and pays from it; `bare`: it burns and leaves the allowances as they were).
 */
interface SenderLeft {
  energy: bigint;
  rented: { staked: bigint; free: bigint };
  bare: { staked: bigint; free: bigint };
}

function leftOf(sender: SenderResources, fees: ChainFees): SenderLeft {
  const staked = sender.activated ? max0(sender.netLimit - sender.netUsed) : 0n;
  const free = sender.activated ? max0(sender.freeNetLimit - sender.freeNetUsed) : fees.freeNetLimit;
  return { energy: sender.activated ? max0(sender.energyLimit - sender.energyUsed) : 0n, rented: { staked, free }, bare: { staked, free } };
}

/** java-tron's all-or-nothing: staked bandwidth pays the whole transaction, else the free allowance does, else none. */
function payBandwidth(left: { staked: bigint; free: bigint }, bytes: bigint): boolean {
  if (left.staked >= bytes) left.staked -= bytes;
  else if (left.free >= bytes) left.free -= bytes;
  else return false;
  return true;
}

/**
 * The Estimates of a request's transfers, in order. Transfers from the same sender are counted one after
 * the other, as they would be sent: each sees the energy and bandwidth the earlier ones leave (a transfer
 * that would fail is not counted: it is not meant to be sent). A sender that is not activated is counted
 * as its first order will leave it: activated, with a new account's free bandwidth (getFreeNetLimit) and no
 * energy. A transfer that would fail gets no orders: renting does not make a revert succeed.
 */
export function estimateTransfers(items: readonly TransferItem[], facts: readonly TransferFacts[], fees: ChainFees, table: PriceTable): Estimate[] {
  const energyRow = rowOf(table, 'energy');
  const bandwidthRow = rowOf(table, 'bandwidth');
  const senders = new Map<string, SenderLeft>();
  const activationCharged = new Set<string>();
  return items.map((item, i) => {
    const { simulation: sim, sender } = facts[i];
    const left = senders.get(item.from) ?? leftOf(sender, fees);
    senders.set(item.from, left);
    const energyNeeded = sim.energyUsed;
    const energyAvailable = left.energy;
    const energyShort = max0(energyNeeded - energyAvailable);
    const feeLimit = recommendedFeeLimit(energyNeeded, fees.energyFeeSun);
    const bandwidthNeeded = BigInt(signedTransferBytes(sim.rawDataBytes, feeLimit));
    const bandwidthAvailable = left.rented.staked + left.rented.free;
    let energyToRent = 0n;
    let bandwidthToRent = 0n;
    let bareCovered = left.bare.staked >= bandwidthNeeded || left.bare.free >= bandwidthNeeded;
    if (sim.ok) {
      left.energy = max0(left.energy - energyNeeded);
      energyToRent = toRent(energyShort, energyRow?.min_amount ?? 0);
      bareCovered = payBandwidth(left.bare, bandwidthNeeded);
      if (!payBandwidth(left.rented, bandwidthNeeded)) {
        bandwidthToRent = toRent(bandwidthNeeded - left.rented.staked, bandwidthRow?.min_amount ?? 0);
        left.rented.staked = left.rented.staked + bandwidthToRent - bandwidthNeeded;
      }
    }
    const orders: EstimateOrder[] = [];
    if (energyToRent > 0n) orders.push({ resource: 'energy', amount: Number(energyToRent), tier: ESTIMATE_TIER, receiver: item.from, activate: true });
    if (bandwidthToRent > 0n) orders.push({ resource: 'bandwidth', amount: Number(bandwidthToRent), tier: ESTIMATE_TIER, receiver: item.from, activate: true });
    // Activation is charged once per inactive sender, on the first order that reaches it.
    let activation = 0n;
    if (orders.length > 0 && !sender.activated && !activationCharged.has(item.from)) {
      activationCharged.add(item.from);
      activation = table.activationFeeSun;
    }
    const pay = energyToRent * (energyRow?.price_sun_per_unit ?? 0n) + bandwidthToRent * (bandwidthRow?.price_sun_per_unit ?? 0n);
    return {
      from: item.from,
      to: item.to,
      token: item.token,
      amount: item.amount.toString(),
      ok: sim.ok,
      error: sim.ok ? null : { code: errorCatalog.transfer_would_fail.code, slug: 'transfer_would_fail', message: sim.failure ?? 'The transfer reverts.' },
      energy_needed: Number(energyNeeded),
      energy_penalty: Number(sim.energyPenalty),
      receiver_holds_token: facts[i].receiverTokenBalance > 0n,
      energy_available: Number(energyAvailable),
      energy_to_rent: Number(energyToRent),
      bandwidth_needed: Number(bandwidthNeeded),
      bandwidth_available: Number(bandwidthAvailable),
      bandwidth_to_rent: Number(bandwidthToRent),
      sender_activated: sender.activated,
      fee_limit_sun: feeLimit,
      burn_sun_without_rental: energyShort * fees.energyFeeSun + (bareCovered ? 0n : bandwidthNeeded * fees.bandwidthFeeSun),
      orders,
      total_amount_sun: pay + activation,
    };
  });
}
