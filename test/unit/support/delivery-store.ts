/** A DeliveryStore as plain data for the delivery roles' unit tests: work lists by name, each transaction's owner. */
import type { Order } from '../../../services/domain/orders/rules';
import type { DeliveryStore } from '../../../services/delivery/store';

export function plainDeliveryStore(lists: Record<string, Order[]>, ownerOf: (txId: string) => string): DeliveryStore {
  const none = async () => new Map();
  return {
    workList: async (list) => lists[list] ?? [],
    openStake: none,
    txOwners: async (txIds) => new Map(txIds.map((id) => [id, ownerOf(id)])),
    storedCommands: none,
    signedOnce: async (_orderId, _purpose, make) => make(),
    storeSignedSets: async (_purpose, sets) => new Map(sets.map((s) => [s.orderId, s.command])),
    activationClaimants: none,
    storedDelegations: async () => [],
  };
}
