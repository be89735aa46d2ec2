/**
 * Everything the delivery roles (broadcaster, confirmer, scheduler) read and store besides the chain, as
 * one interface: `deliveryStoreOn(pool)` for the roles, a plain object in their unit tests.
 */
import type { Command } from '../domain/commands';
import type { Order } from '../domain/orders/rules';
import type { Pool } from '../platform/db/pool';
import { openStake, type OpenStakeQuery } from '../orders/open-stake';
import { orderTraces } from '../orders/trace-reads';
import { workList, type WorkList, type WorkListCache } from '../orders/work-lists';
import {
  activationClaimants, signedOnce, storedCommands, storeSignedSets, txOwners, type SignedPurpose, type StoredDelegation, type StoredDelegationsCache,
} from './signed-sets';

export interface DeliveryStore {
  workList(list: WorkList, now: number, limit: number, cache?: WorkListCache): Promise<Order[]>;
  /** Stake the orders hold on chain, per stakeKey (services/orders/open-stake.ts). */
  openStake(query: OpenStakeQuery): Promise<Map<string, bigint>>;
  txOwners(txIds: string[]): Promise<Map<string, string>>;
  storedCommands(orderIds: string[], purpose: 'allocate' | 'close'): Promise<Map<string, Command>>;
  signedOnce(orderId: string, purpose: SignedPurpose, make: () => Promise<Command | null>, receiver?: string | null): Promise<Command | null>;
  storeSignedSets(purpose: 'allocate' | 'close', sets: Array<{ orderId: string; command: Command }>): Promise<Map<string, Command | null>>;
  activationClaimants(receivers: string[]): Promise<Map<string, string>>;
  storedDelegations(cache: StoredDelegationsCache): Promise<StoredDelegation[]>;
  /** The trace context each order was created under (for spans, order-spans.ts); unset: no spans. */
  orderTraces?(orderIds: string[]): Promise<Map<string, Record<string, string>>>;
}

export function deliveryStoreOn(pool: Pool): DeliveryStore {
  return {
    workList: (list, now, limit, cache) => workList(pool, list, now, limit, cache),
    openStake: (query) => openStake(pool, query),
    txOwners: (txIds) => txOwners(pool, txIds),
    storedCommands: (orderIds, purpose) => storedCommands(pool, orderIds, purpose),
    signedOnce: (orderId, purpose, make, receiver) => signedOnce(pool, orderId, purpose, make, receiver ?? null),
    storeSignedSets: (purpose, sets) => storeSignedSets(pool, purpose, sets),
    activationClaimants: (receivers) => activationClaimants(pool, receivers),
    storedDelegations: (cache) => cache.read(pool),
    orderTraces: (orderIds) => orderTraces(pool, orderIds),
  };
}
