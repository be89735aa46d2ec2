import type { Resource } from '../tx/contracts';
import type { Account, StateView } from './accounts';
import { PARAMS, TRX, WINDOW_SLOTS } from './params';

/**
 * Usage left from `usage` recorded at `lastSlot`, seen at `nowSlot`: it decays linearly to zero
 * over the 24 h window, which is how staked resources "recover" (java-tron ResourceProcessor).
 */
export function recovered(usage: bigint, lastSlot: number, nowSlot: number): bigint {
  if (usage === 0n || nowSlot <= lastSlot) return usage;
  const elapsed = nowSlot - lastSlot;
  if (elapsed >= WINDOW_SLOTS) return 0n;
  return (usage * BigInt(WINDOW_SLOTS - elapsed)) / BigInt(WINDOW_SLOTS);
}

/** Stake (SUN) that earns `resource` for an account: its own plus what others delegated to it. */
export function stakeFor(account: Account, resource: Resource): bigint {
  return resource === 'ENERGY' ? account.frozenEnergy + account.acquiredEnergy : account.frozenBandwidth + account.acquiredBandwidth;
}

/** Whole-TRX weight of an account's own stake for a resource, delegated part included. */
export function ownWeight(account: Account, resource: Resource): bigint {
  const own = resource === 'ENERGY' ? account.frozenEnergy + account.delegatedEnergy : account.frozenBandwidth + account.delegatedBandwidth;
  return own / TRX;
}

function totalLimit(resource: Resource): bigint {
  return resource === 'ENERGY' ? PARAMS.totalEnergyLimit : PARAMS.totalNetLimit;
}

/**
 * Limit = stake/1 TRX × TotalLimit / TotalWeight, computed in doubles and truncated as java-tron
 * does (calculateGlobalEnergyLimit / calculateGlobalNetLimit).
 */
export function resourceLimit(view: StateView, account: Account, resource: Resource): bigint {
  const weight = stakeFor(account, resource) / TRX;
  const total = view.weight(resource);
  if (weight === 0n || total === 0n) return 0n;
  return BigInt(Math.floor(Number(weight) * (Number(totalLimit(resource)) / Number(total))));
}

export function energyUsed(account: Account, slot: number): bigint {
  return recovered(account.energyUsage, account.latestConsumeSlotForEnergy, slot);
}

export function netUsed(account: Account, slot: number): bigint {
  return recovered(account.netUsage, account.latestConsumeSlot, slot);
}

export function freeNetUsed(account: Account, slot: number): bigint {
  return recovered(account.freeNetUsage, account.latestConsumeFreeSlot, slot);
}

/**
 * SUN of own (not acquired) stake tied up by current usage, which cannot be delegated
 * (DelegateResourceActuator: usage × 1 TRX × weight / limit, minus acquired stake).
 */
export function stakeTiedByUsage(view: StateView, account: Account, resource: Resource, slot: number): bigint {
  const used = resource === 'ENERGY' ? energyUsed(account, slot) : netUsed(account, slot);
  const asStake = BigInt(Math.floor(Number(used) * Number(TRX) * (Number(view.weight(resource)) / Number(totalLimit(resource)))));
  const acquired = resource === 'ENERGY' ? account.acquiredEnergy : account.acquiredBandwidth;
  const remain = asStake - acquired;
  return remain > 0n ? remain : 0n;
}

/** What getcandelegatedmaxsize answers: own stake of the resource not tied up by usage. */
export function delegatableStake(view: StateView, account: Account, resource: Resource, slot: number): bigint {
  const frozen = resource === 'ENERGY' ? account.frozenEnergy : account.frozenBandwidth;
  const free = frozen - stakeTiedByUsage(view, account, resource, slot);
  return free > 0n ? free : 0n;
}
