/**
 * The confirmer's cache of final transaction states is bounded: an answer is kept only while its order
 * is still in a work list (allocating or closing) and dropped once the order is settled or closed.
 */
import { settlesOf } from '../support/settlements';
import type { Order } from '../../services/domain/orders/rules';
import { SteppedClock } from '../../services/platform/clock';

const lists: Record<string, Order[]> = { allocating: [], closing: [] };
import { Confirmer } from '../../services/delivery/confirmer';
import { plainDeliveryStore } from './support/delivery-store';
import { order } from './confirmer-order';


test('transaction states of settled orders are dropped from the cache', async () => {
  const appended: any[] = [];
  const reads: string[] = [];
  const confirmer = new Confirmer({
    cfg: { ORDER_WAIT_WINDOW_MS: 10_000 } as any,
    // order_tx_ids: each transaction stored by its own order (tx_a* by ord_a, tx_b* by ord_b).
    pool: {} as any,
    store: plainDeliveryStore(lists, (txId) => `ord_${txId[3]}`),
    clock: new SteppedClock(1_000),
    bus: { append: async (c: any[]) => void appended.push(...settlesOf(c)) } as any,
    reader: {
      transaction: async (txId: string) => (reads.push(txId), {
        txid: txId, type: 'DelegateResourceContract', contractRet: 'SUCCESS', owner: 'TPool', receiver: 'TReceiver', resource: 'ENERGY', balanceSun: 1_000_000n,
      }),
      delegated: async () => ({ ENERGY: 10_000_000n, BANDWIDTH: 0n }),
    } as any,
  });
  lists.allocating = [order('ord_a', ['tx_a1', 'tx_a2']), order('ord_b', ['tx_b1'])];
  await confirmer.tick();
  expect(appended.map((c) => [c.type, c.orderId])).toEqual([['order.settle', 'ord_a'], ['order.settle', 'ord_b']]);
  expect(confirmer.cachedStates).toBe(3);

  // ord_a is still listed (its settle not applied yet): answered from the cache, not read again.
  lists.allocating = [order('ord_a', ['tx_a1', 'tx_a2'])];
  await confirmer.tick();
  expect(reads).toEqual(['tx_a1', 'tx_a2', 'tx_b1']);
  expect(confirmer.cachedStates).toBe(2);

  lists.allocating = [];
  await confirmer.tick();
  expect(confirmer.cachedStates).toBe(0);
});
