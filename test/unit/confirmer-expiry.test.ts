/**
 * "Can no longer land" is judged against the newest solidified block, read before the transactions: a
 * delegation in a head block that is not solidified yet is pending in the solidified view, and an order
 * failed on the head's time left that stake delegated to no open order once the block solidified.
 */
import type { Order } from '../../services/domain/orders';
import { SteppedClock } from '../../services/platform/clock';

const lists: Record<string, Order[]> = { allocating: [], closing: [] };
jest.mock('../../services/broadcaster/work', () => ({
  ...jest.requireActual('../../services/broadcaster/work'),
  workList: async (_pool: unknown, list: string) => lists[list] ?? [],
}));
import { Confirmer } from '../../services/confirmer/confirmer';

const EXPIRATION = 50_000;
const order = (id: string): Order => ({
  id, accountId: 'acc_1', clientOrderId: null, requestHash: '', quoteId: null, resource: 'energy', amount: 20_000, deliveredAmount: null,
  partial: false, tier: '1h', durationSeconds: 3600, receiver: 'TReceiver', source: 'api', status: 'allocating', confirmStatus: 'unconfirmed',
  priceSunPerUnit: 1n, paySun: 1n, activateSun: 0n, totalSun: 1n, refundedSun: 0n, supplier: 'pool', ratio: null,
  allocations: [{ kind: 'delegate', from: 'TPool', amount: 20_000, sun: 1_000_000n, txId: `tx_${id}`, signedTx: JSON.stringify({ raw_data: { expiration: EXPIRATION } }), landed: null }],
  delegatedAt: null, expiresAt: null, closeReason: null, closeRequestedAt: null, undelegations: [], reclaimHash: null, reclaimedAt: null,
  memo: null, failure: null, createdAt: 0, updatedAt: 0,
} as Order);

function confirmerOver(chain: { solidTimestamp: number; solidTxs: Set<string> }, calls: string[], appended: any[]) {
  return new Confirmer({
    cfg: { ORDER_WAIT_WINDOW_MS: 10_000 } as any,
    pool: { query: async (sql: string, params: string[]) => ({ rows: sql.includes('order_tx_ids') ? [{ order_id: `ord_${params[0].slice(7)}` }] : [] }) } as any,
    clock: new SteppedClock(60_000),
    bus: { append: async (c: any[]) => void appended.push(...c) } as any,
    reader: {
      nowBlock: async (view: string) => (calls.push(`head:${view}`), { number: 7, id: 'b7', timestamp: chain.solidTimestamp }),
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
