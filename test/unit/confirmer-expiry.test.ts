/**
 * "Can no longer land" is judged against the newest solidified block, read before the transactions: a
 * delegation in a head block that is not solidified yet is pending in the solidified view, and an order
 * failed on the head's time left that stake delegated to no open order once the block solidified.
 */
import { settlesOf } from '../support/settlements';
import type { Order } from '../../services/domain/orders/rules';
import { SteppedClock } from '../../services/platform/clock';

const lists: Record<string, Order[]> = { allocating: [], closing: [] };
import { Confirmer } from '../../services/delivery/confirmer';
import { plainDeliveryStore } from './support/delivery-store';
import { order as allocatingOrder } from './confirmer-order';

const EXPIRATION = 50_000;
/** One delegation, signed to expire at EXPIRATION (chain ms). */
const order = (id: string): Order => {
  const o = allocatingOrder(id, [`tx_${id}`]);
  return { ...o, allocations: o.allocations.map((a) => ({ ...a, signedTx: JSON.stringify({ raw_data: { expiration: EXPIRATION } }) })) };
};

function confirmerOver(chain: { solidTimestamp: number; solidTxs: Set<string> }, calls: string[], appended: any[]) {
  return new Confirmer({
    cfg: { ORDER_WAIT_WINDOW_MS: 10_000 } as any,
    pool: {} as any,
    store: plainDeliveryStore(lists, (txId) => `ord_${txId.slice(7)}`),
    clock: new SteppedClock(60_000),
    bus: { append: async (c: any[]) => void appended.push(...settlesOf(c)) } as any,
    reader: {
      nowBlock: async (view: string) => (calls.push(`head:${view}`), { number: 7, id: 'b7', timestamp: chain.solidTimestamp }),
      solidifiedBlockNumber: async () => 7,
      blockTxIds: async () => ({ ids: [], last: 7 }),
      transaction: async (txId: string, view: string) => {
        calls.push(`tx:${view}`);
        return chain.solidTxs.has(txId)
          ? { txid: txId, type: 'DelegateResourceContract', contractRet: 'SUCCESS', owner: 'TPool', receiver: 'TReceiver', resource: 'ENERGY', balanceSun: 1_000_000n }
          : undefined;
      },
      delegated: async () => ({ ENERGY: 10_000_000n, BANDWIDTH: 0n }),
    } as any,
  });
}

test('past the window, a pending delegation is hopeless only once the solidified head is past its expiration, read before the states', async () => {
  const calls: string[] = [];
  const appended: any[] = [];
  const chain = { solidTimestamp: EXPIRATION - 1_000, solidTxs: new Set<string>() };
  const confirmer = confirmerOver(chain, calls, appended);
  lists.allocating = [order('ord_x')];

  // The head may be past the expiration (the block holding the delegation is not solidified yet): still waiting.
  await confirmer.tick();
  expect(appended).toEqual([]);
  expect(calls).toEqual(['head:solid', 'tx:solid']);

  // The delegation solidified: settled on it, never failed.
  chain.solidTxs.add('tx_ord_x');
  chain.solidTimestamp = EXPIRATION + 1_000;
  await confirmer.tick();
  expect(appended.map((c) => [c.type, c.orderId, c.landedTxIds, c.strandedTxIds])).toEqual([['order.settle', 'ord_x', ['tx_ord_x'], undefined]]);
});

test('a delegation missing from the solidified view once the solidified head is past its expiration fails the order', async () => {
  const calls: string[] = [];
  const appended: any[] = [];
  const confirmer = confirmerOver({ solidTimestamp: EXPIRATION + 1, solidTxs: new Set() }, calls, appended);
  lists.allocating = [order('ord_y')];
  await confirmer.tick();
  expect(appended.map((c) => [c.type, c.orderId, c.landedTxIds])).toEqual([['order.settle', 'ord_y', []]]);
  expect(calls.indexOf('head:solid')).toBeLessThan(calls.indexOf('tx:solid'));
});
