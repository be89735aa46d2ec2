import type { HexAddress } from '../crypto/address';
import type { Account, Delegation, StateView } from '../state/accounts';
import { DEFAULT_LOCK_SLOTS, PARAMS, SLOT_MS, TRX } from '../state/params';
import { energyUsed, netUsed, resourceLimit, stakeFor, stakeTiedByUsage } from '../state/resources';
import type { Contract, Resource } from '../tx/contracts';
import type { ExecContext } from './context';
import { invalid } from './refusal';

type Delegate = Extract<Contract, { type: 'DelegateResourceContract' }>;
type UnDelegate = Extract<Contract, { type: 'UnDelegateResourceContract' }>;

const emptyDelegation = (from: HexAddress, to: HexAddress, locked: boolean): Delegation => ({ from, to, locked, bandwidth: 0n, energy: 0n, expireBandwidth: 0, expireEnergy: 0 });

const amountOf = (d: Delegation | undefined, r: Resource) => (d ? (r === 'ENERGY' ? d.energy : d.bandwidth) : 0n);
const expiryOf = (d: Delegation | undefined, r: Resource) => (d ? (r === 'ENERGY' ? d.expireEnergy : d.expireBandwidth) : 0);

function withAmount(d: Delegation, r: Resource, amount: bigint, expire?: number): Delegation {
  return r === 'ENERGY'
    ? { ...d, energy: amount, expireEnergy: expire ?? d.expireEnergy }
    : { ...d, bandwidth: amount, expireBandwidth: expire ?? d.expireBandwidth };
}

function addToIndex(view: StateView, from: HexAddress, to: HexAddress): void {
  const fromIndex = view.delegationIndex(from);
  if (!fromIndex.to.includes(to)) view.putDelegationIndex(from, { ...fromIndex, to: [...fromIndex.to, to] });
  const toIndex = view.delegationIndex(to);
  if (!toIndex.from.includes(from)) view.putDelegationIndex(to, { ...toIndex, from: [...toIndex.from, from] });
}

function dropFromIndexIfEmpty(view: StateView, from: HexAddress, to: HexAddress): void {
  if (view.delegation(from, to, false) || view.delegation(from, to, true)) return;
  const fromIndex = view.delegationIndex(from);
  view.putDelegationIndex(from, { ...fromIndex, to: fromIndex.to.filter((a) => a !== to) });
  const toIndex = view.delegationIndex(to);
  view.putDelegationIndex(to, { ...toIndex, from: toIndex.from.filter((a) => a !== from) });
}

/** Moves expired locked amounts into the unlocked record (DelegatedResourceStore.unLockExpireResource). */
function unlockExpired(view: StateView, from: HexAddress, to: HexAddress, nowMs: number): void {
  const locked = view.delegation(from, to, true);
  if (!locked) return;
  let unlocked = view.delegation(from, to, false) ?? emptyDelegation(from, to, false);
  let stillLocked = locked;
  for (const r of ['BANDWIDTH', 'ENERGY'] as const) {
    if (amountOf(locked, r) > 0n && expiryOf(locked, r) < nowMs) {
      unlocked = withAmount(unlocked, r, amountOf(unlocked, r) + amountOf(locked, r));
      stillLocked = withAmount(stillLocked, r, 0n, 0);
    }
  }
  view.putDelegation(unlocked);
  view.putDelegation(stillLocked);
}

/** DelegateResourceActuator: lends own stake's resource to another account, optionally locked. */
export function delegateResource(ctx: ExecContext, c: Delegate): void {
  const { view } = ctx;
  const owner = view.account(c.owner);
  if (!owner) throw invalid(`Account[${c.owner}] not exists`);
  if (c.balance < TRX) throw invalid('delegateBalance must be more than 1TRX');
  const frozen = c.resource === 'ENERGY' ? owner.frozenEnergy : owner.frozenBandwidth;
  if (frozen - stakeTiedByUsage(view, owner, c.resource, ctx.slot) < c.balance) {
    throw invalid(c.resource === 'ENERGY' ? 'delegateBalance must be less than available FreezeEnergyV2 balance' : 'delegateBalance must be less than available FreezeBandwidthV2 balance');
  }
  if (c.receiver === c.owner) throw invalid('receiverAddress must not be the same as ownerAddress');
  const receiver = view.account(c.receiver);
  if (!receiver) throw invalid(`Account[${c.receiver}] not exists`);
  const lockSlots = c.lock ? (c.lockPeriod === 0n ? DEFAULT_LOCK_SLOTS : c.lockPeriod) : 0n;
  if (c.lock) {
    if (lockSlots < 0n || lockSlots > PARAMS.maxDelegateLockPeriod) {
      throw invalid(`The lock period of delegate resource cannot be less than 0 and cannot exceed ${PARAMS.maxDelegateLockPeriod}!`);
    }
    const remain = expiryOf(view.delegation(c.owner, c.receiver, true), c.resource) - ctx.nowMs;
    if (Number(lockSlots) * SLOT_MS < remain) {
      throw invalid(`The lock period for ${c.resource} this time cannot be less than the remaining time[${remain}ms] of the last lock period for ${c.resource}!`);
    }
  }
  if (receiver.isContract) throw invalid('Do not allow delegate resources to contract addresses');

  unlockExpired(view, c.owner, c.receiver, ctx.nowMs);
  const record = view.delegation(c.owner, c.receiver, c.lock) ?? emptyDelegation(c.owner, c.receiver, c.lock);
  const expire = c.lock ? ctx.nowMs + Number(lockSlots) * SLOT_MS : 0;
  view.putDelegation(withAmount(record, c.resource, amountOf(record, c.resource) + c.balance, expire));
  addToIndex(view, c.owner, c.receiver);

  view.putAccount(
    c.resource === 'ENERGY'
      ? { ...receiver, acquiredEnergy: receiver.acquiredEnergy + c.balance }
      : { ...receiver, acquiredBandwidth: receiver.acquiredBandwidth + c.balance },
  );
  // The delegated stake keeps its weight: it only moves from frozen to delegated.
  view.putAccount(
    c.resource === 'ENERGY'
      ? { ...owner, frozenEnergy: owner.frozenEnergy - c.balance, delegatedEnergy: owner.delegatedEnergy + c.balance, latestOperationTime: ctx.nowMs }
      : { ...owner, frozenBandwidth: owner.frozenBandwidth - c.balance, delegatedBandwidth: owner.delegatedBandwidth + c.balance, latestOperationTime: ctx.nowMs },
  );
}

/** Usage the receiver gives back with the stake, in proportion to the share of its stake returned. */
function usageToTransfer(view: StateView, receiver: Account, r: Resource, amount: bigint, slot: number): bigint {
  const used = r === 'ENERGY' ? energyUsed(receiver, slot) : netUsed(receiver, slot);
  const stake = stakeFor(receiver, r);
  if (used === 0n || stake === 0n) return 0n;
  const share = (used * amount) / stake;
  const maxForAmount = resourceLimit(view, { ...receiver, frozenEnergy: 0n, frozenBandwidth: 0n, acquiredEnergy: amount, acquiredBandwidth: amount }, r);
  return share < maxForAmount ? share : maxForAmount;
}

/** UnDelegateResourceActuator: takes back unlocked (or lock-expired) delegated stake. */
export function unDelegateResource(ctx: ExecContext, c: UnDelegate): void {
  const { view } = ctx;
  const owner = view.account(c.owner);
  if (!owner) throw invalid(`Account[${c.owner}] does not exist`);
  if (c.receiver === c.owner) throw invalid('receiverAddress must not be the same as ownerAddress');
  const unlockedRecord = view.delegation(c.owner, c.receiver, false);
  const lockedRecord = view.delegation(c.owner, c.receiver, true);
  if (!unlockedRecord && !lockedRecord) throw invalid('delegated Resource does not exist');
  if (c.balance <= 0n) throw invalid('unDelegateBalance must be more than 0 TRX');
  const expiredLocked = expiryOf(lockedRecord, c.resource) < ctx.nowMs ? amountOf(lockedRecord, c.resource) : 0n;
  const available = amountOf(unlockedRecord, c.resource) + expiredLocked;
  if (available < c.balance) {
    throw invalid(
      c.resource === 'ENERGY'
        ? `insufficient delegateFrozenBalance(Energy), request=${c.balance}, unlock_balance=${available}`
        : `insufficient delegatedFrozenBalance(BANDWIDTH), request=${c.balance}, unlock_balance=${available}`,
    );
  }

  const receiver = view.account(c.receiver);
  let transferred = 0n;
  if (receiver) {
    transferred = usageToTransfer(view, receiver, c.resource, c.balance, ctx.slot);
    view.putAccount(
      c.resource === 'ENERGY'
        ? { ...receiver, acquiredEnergy: receiver.acquiredEnergy - c.balance, energyUsage: energyUsed(receiver, ctx.slot) - transferred, latestConsumeSlotForEnergy: ctx.slot }
        : { ...receiver, acquiredBandwidth: receiver.acquiredBandwidth - c.balance, netUsage: netUsed(receiver, ctx.slot) - transferred, latestConsumeSlot: ctx.slot },
    );
  }

  unlockExpired(view, c.owner, c.receiver, ctx.nowMs);
  const record = view.delegation(c.owner, c.receiver, false) ?? emptyDelegation(c.owner, c.receiver, false);
  view.putDelegation(withAmount(record, c.resource, amountOf(record, c.resource) - c.balance));
  dropFromIndexIfEmpty(view, c.owner, c.receiver);

  view.putAccount(
    c.resource === 'ENERGY'
      ? { ...owner, frozenEnergy: owner.frozenEnergy + c.balance, delegatedEnergy: owner.delegatedEnergy - c.balance, energyUsage: energyUsed(owner, ctx.slot) + transferred, latestConsumeSlotForEnergy: ctx.slot, latestOperationTime: ctx.nowMs }
      : { ...owner, frozenBandwidth: owner.frozenBandwidth + c.balance, delegatedBandwidth: owner.delegatedBandwidth - c.balance, netUsage: netUsed(owner, ctx.slot) + transferred, latestConsumeSlot: ctx.slot, latestOperationTime: ctx.nowMs },
  );
}
