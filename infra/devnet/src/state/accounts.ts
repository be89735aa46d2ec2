import type { HexAddress } from '../crypto/address';
import type { Resource } from '../tx/contracts';
import type { Layer } from './store';

export interface Unfreezing {
  readonly resource: Resource;
  readonly amount: bigint;
  readonly expireTime: number;
}

/** An account with its Stake 2.0 fields; usages are stored with the slot they were last updated at. */
export interface Account {
  readonly address: HexAddress;
  readonly balance: bigint;
  readonly createTime: number;
  readonly latestOperationTime: number;
  readonly isContract: boolean;
  readonly netUsage: bigint;
  readonly latestConsumeSlot: number;
  readonly freeNetUsage: bigint;
  readonly latestConsumeFreeSlot: number;
  readonly energyUsage: bigint;
  readonly latestConsumeSlotForEnergy: number;
  /** Own stake still in the account (delegated stake moves to delegated*). */
  readonly frozenBandwidth: bigint;
  readonly frozenEnergy: bigint;
  readonly delegatedBandwidth: bigint;
  readonly delegatedEnergy: bigint;
  readonly acquiredBandwidth: bigint;
  readonly acquiredEnergy: bigint;
  readonly unfrozen: readonly Unfreezing[];
}

/** One delegation record; java-tron keeps locked and unlocked delegations under separate keys. */
export interface Delegation {
  readonly from: HexAddress;
  readonly to: HexAddress;
  readonly locked: boolean;
  readonly bandwidth: bigint;
  readonly energy: bigint;
  readonly expireBandwidth: number;
  readonly expireEnergy: number;
}

export interface DelegationIndex {
  /** Accounts that delegated to this one. */
  readonly from: readonly HexAddress[];
  /** Accounts this one delegated to. */
  readonly to: readonly HexAddress[];
}

export function newAccount(address: HexAddress, nowMs: number, isContract = false): Account {
  return {
    address,
    balance: 0n,
    createTime: nowMs,
    latestOperationTime: nowMs,
    isContract,
    netUsage: 0n,
    latestConsumeSlot: 0,
    freeNetUsage: 0n,
    latestConsumeFreeSlot: 0,
    energyUsage: 0n,
    latestConsumeSlotForEnergy: 0,
    frozenBandwidth: 0n,
    frozenEnergy: 0n,
    delegatedBandwidth: 0n,
    delegatedEnergy: 0n,
    acquiredBandwidth: 0n,
    acquiredEnergy: 0n,
    unfrozen: [],
  };
}

/** Typed access to the state keys; every read and write goes through one layer. */
export class StateView {
  constructor(readonly layer: Layer) {}

  account(address: HexAddress): Account | undefined {
    return this.layer.get<Account>('acct:' + address);
  }

  putAccount(account: Account): void {
    this.layer.set('acct:' + account.address, account);
  }

  delegation(from: HexAddress, to: HexAddress, locked: boolean): Delegation | undefined {
    return this.layer.get<Delegation>(`dr:${from}:${to}:${locked ? 1 : 0}`);
  }

  putDelegation(d: Delegation): void {
    const empty = d.bandwidth === 0n && d.energy === 0n;
    this.layer.set(`dr:${d.from}:${d.to}:${d.locked ? 1 : 0}`, empty ? undefined : d);
  }

  delegationIndex(address: HexAddress): DelegationIndex {
    return this.layer.get<DelegationIndex>('dri:' + address) ?? { from: [], to: [] };
  }

  putDelegationIndex(address: HexAddress, index: DelegationIndex): void {
    this.layer.set('dri:' + address, index.from.length || index.to.length ? index : undefined);
  }

  /** Total stake weights in whole TRX, as java-tron's TotalNetWeight / TotalEnergyWeight. */
  weight(resource: Resource): bigint {
    return this.layer.get<bigint>('prop:weight:' + resource) ?? 0n;
  }

  addWeight(resource: Resource, delta: bigint): void {
    this.layer.set('prop:weight:' + resource, this.weight(resource) + delta);
  }

  tokenBalance(token: HexAddress, holder: HexAddress): bigint {
    return this.layer.get<bigint>(`tok:${token}:${holder}`) ?? 0n;
  }

  putTokenBalance(token: HexAddress, holder: HexAddress, amount: bigint): void {
    this.layer.set(`tok:${token}:${holder}`, amount === 0n ? undefined : amount);
  }

  prop<T>(name: string): T | undefined {
    return this.layer.get<T>('prop:' + name);
  }

  putProp(name: string, value: unknown): void {
    this.layer.set('prop:' + name, value);
  }
}
