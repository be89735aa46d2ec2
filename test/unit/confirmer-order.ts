/** An allocating order of one delegation per transaction id, for the confirmer's unit tests. */
import type { Order } from '../../services/domain/orders/rules';

export const order = (id: string, txIds: string[], status: Order['status'] = 'allocating'): Order => ({
  id, accountId: 'acc_1', clientOrderId: null, requestHash: '', quoteId: null, resource: 'energy', amount: 20_000, deliveredAmount: null,
  partial: false, tier: '1h', durationSeconds: 3600, receiver: 'TReceiver', source: 'api', status, confirmStatus: 'unconfirmed',
  priceSunPerUnit: 1n, paySun: 1n, activateSun: 0n, totalSun: 1n, refundedSun: 0n, supplier: 'pool', ratio: null,
  allocations: txIds.map((txId) => ({ kind: 'delegate', from: 'TPool', amount: 20_000, sun: 1_000_000n, txId, signedTx: '{}', landed: null })),
  delegatedAt: null, expiresAt: null, closeReason: null, closeRequestedAt: null, undelegations: [], reclaimHash: null, reclaimedAt: null,
  memo: null, failure: null, createdAt: 0, updatedAt: 0,
} as Order);
