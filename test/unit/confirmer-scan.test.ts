/**
 * The confirmer learns which transactions are in a solidified block from the blocks since its last pass:
 * a transaction read as pending once is not read again until a block it is in has been read, and a read
 * of the blocks that fails sends it back to one read per transaction.
 */
import { settlesOf } from '../support/settlements';
import type { Order } from '../../services/domain/orders/rules';
import { SteppedClock } from '../../services/platform/clock';

const lists: Record<string, Order[]> = { allocating: [], closing: [] };
import { Confirmer } from '../../services/delivery/confirmer';
import { plainDeliveryStore } from './support/delivery-store';
import { order } from './confirmer-order';


test('a pending transaction is read again only once a solidified block holding it was read', async () => {
  const appended: any[] = [];
  const reads: string[] = [];
  const chain = { solid: 10, blocks: new Map<number, string[]>(), landed: new Set<string>(), failRange: false };
  const confirmer = new Confirmer({
    cfg: { ORDER_WAIT_WINDOW_MS: 60_000 } as any,
    pool: {} as any,
    store: plainDeliveryStore(lists, () => 'ord_a'),
    clock: new SteppedClock(1_000),
    bus: { append: async (c: any[]) => void appended.push(...settlesOf(c)) } as any,
    reader: {
      solidifiedBlockNumber: async () => chain.solid,
      blockTxIds: async (start: number, end: number) => {
        if (chain.failRange) return { ids: [], last: null };
        const ids: string[] = [];
        for (let n = start; n < end; n++) ids.push(...(chain.blocks.get(n) ?? []));
        return { ids, last: end - 1 };
      },
      transaction: async (txId: string) => {
        reads.push(txId);
        return chain.landed.has(txId) ? {
          txid: txId, type: 'DelegateResourceContract', contractRet: 'SUCCESS', owner: 'TPool', receiver: 'TReceiver', resource: 'ENERGY', balanceSun: 1_000_000n,
        } : undefined;
      },
      delegated: async () => ({ ENERGY: 10_000_000n, BANDWIDTH: 0n }),
    } as any,
  });
  lists.allocating = [order('ord_a', ['tx_1'])];
  await confirmer.tick();
  expect(reads).toEqual(['tx_1']);
  // Blocks without it: not read again.
  chain.solid = 12;
  chain.blocks.set(11, ['other']);
  await confirmer.tick();
  await confirmer.tick();
  expect(reads).toEqual(['tx_1']);
  expect(appended).toEqual([]);
  // A block that cannot be read: back to a read per transaction for that pass.
  chain.solid = 13;
  chain.failRange = true;
  await confirmer.tick();
  expect(reads).toEqual(['tx_1', 'tx_1']);
  // It lands in a block read later: read, and the order settled on it.
  chain.failRange = false;
  chain.landed.add('tx_1');
  chain.blocks.set(15, ['tx_1']);
  chain.solid = 15;
  await confirmer.tick(); // first pass after the failure: starts from block 15, reads each transaction
  expect(appended.map((c) => [c.type, c.orderId, c.landedTxIds])).toEqual([['order.settle', 'ord_a', ['tx_1']]]);
});
