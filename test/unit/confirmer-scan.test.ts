/**
 * The confirmer learns which transactions are in a solidified block from the blocks since its last pass:
 * a transaction read as pending once is not read again until a block it is in has been read, and a read
 * of the blocks that fails sends it back to one read per transaction.
 */
import type { Order } from '../../services/domain/orders';
import { SteppedClock } from '../../services/platform/clock';

const lists: Record<string, Order[]> = { allocating: [], closing: [] };
const mockListReads: string[] = [];
jest.mock('../../services/broadcaster/work', () => ({
  ...jest.requireActual('../../services/broadcaster/work'),
  workList: async (_pool: unknown, list: string) => (mockListReads.push(list), lists[list] ?? []),
}));
import { Confirmer } from '../../services/confirmer/confirmer';
import { order } from './confirmer-order';


test('a pending transaction is read again only once a solidified block holding it was read', async () => {
  const appended: any[] = [];
  const reads: string[] = [];
  const chain = { solid: 10, blocks: new Map<number, string[]>(), landed: new Set<string>(), failRange: false };
  const confirmer = new Confirmer({
    cfg: { ORDER_WAIT_WINDOW_MS: 60_000 } as any,
    pool: { query: async (sql: string) => ({ rows: sql.includes('order_tx_ids') ? [{ order_id: 'ord_a' }] : [] }) } as any,
    clock: new SteppedClock(1_000),
    bus: { append: async (c: any[]) => void appended.push(...c) } as any,
    reader: {
      solidifiedBlockNumber: async () => chain.solid,
      // Blocks that do not state results (no contents): a transaction seen in one is read on its own.
      blockTransactions: async (start: number, end: number) => {
        if (chain.failRange) return { txs: [], last: null };
        const txs: Array<[string, null]> = [];
        for (let n = start; n < end; n++) txs.push(...(chain.blocks.get(n) ?? []).map((id): [string, null] => [id, null]));
        return { txs, last: end - 1 };
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

test('a transaction in a solidified block that states its result is settled from the block: no read of its own, owners read once for the pass', async () => {
  const appended: any[] = [];
  const reads: string[] = [];
  const queries: unknown[][] = [];
  const landed = (txid: string) => ({ txid, type: 'DelegateResourceContract', contractRet: 'SUCCESS', owner: 'TPool', to: null, amountSun: null, contract: null, receiver: 'TReceiver', resource: 'ENERGY', balanceSun: 1_000_000n });
  const chain = { solid: 10, blocks: new Map<number, string[]>() };
  const confirmer = new Confirmer({
    cfg: { ORDER_WAIT_WINDOW_MS: 60_000 } as any,
    pool: {
      query: async (sql: string, params: unknown[]) => {
        if (!sql.includes('order_tx_ids')) return { rows: [] };
        queries.push(params[0] as unknown[]);
        return { rows: (params[0] as string[]).map((id) => ({ tx_id: id, order_id: `ord_${id.slice(3)}` })) };
      },
    } as any,
    clock: new SteppedClock(1_000),
    bus: { append: async (c: any[]) => void appended.push(...c) } as any,
    reader: {
      solidifiedBlockNumber: async () => chain.solid,
      blockTransactions: async (start: number, end: number) => {
        const txs: Array<[string, unknown]> = [];
        for (let n = start; n < end; n++) txs.push(...(chain.blocks.get(n) ?? []).map((id): [string, unknown] => [id, landed(id)]));
        return { txs, last: end - 1 };
      },
      transaction: async (txId: string) => (reads.push(txId), undefined),
      delegated: async () => ({ ENERGY: 10_000_000n, BANDWIDTH: 0n }),
    } as any,
  });
  lists.allocating = [order('ord_a', ['tx_a']), order('ord_b', ['tx_b'])];
  await confirmer.tick(); // the window starts here; both read once, pending
  expect(reads).toEqual(['tx_a', 'tx_b']);
  chain.blocks.set(11, ['tx_a', 'tx_b']);
  chain.solid = 11;
  await confirmer.tick();
  expect(reads).toEqual(['tx_a', 'tx_b']);
  expect(queries).toEqual([['tx_a', 'tx_b']]);
  expect(appended.map((c) => [c.type, c.orderId, c.landedTxIds])).toEqual([['order.settle', 'ord_a', ['tx_a']], ['order.settle', 'ord_b', ['tx_b']]]);
});

test('a landed transaction another order stored does not settle this one, from the block either', async () => {
  const appended: any[] = [];
  const chain = { solid: 10 };
  const confirmer = new Confirmer({
    cfg: { ORDER_WAIT_WINDOW_MS: 60_000 } as any,
    pool: { query: async (sql: string, params: unknown[]) => ({ rows: sql.includes('order_tx_ids') ? (params[0] as string[]).map((id) => ({ tx_id: id, order_id: 'ord_other' })) : [] }) } as any,
    clock: new SteppedClock(1_000),
    bus: { append: async (c: any[]) => void appended.push(...c) } as any,
    reader: {
      solidifiedBlockNumber: async () => chain.solid,
      blockTransactions: async (start: number, end: number) => ({
        txs: start <= 11 && end > 11 ? [['tx_c', { txid: 'tx_c', type: 'DelegateResourceContract', contractRet: 'SUCCESS', owner: 'TPool', receiver: 'TReceiver', resource: 'ENERGY', balanceSun: 1_000_000n }]] : [],
        last: end - 1,
      }),
      transaction: async () => undefined,
      delegated: async () => ({ ENERGY: 10_000_000n, BANDWIDTH: 0n }),
    } as any,
  });
  lists.allocating = [order('ord_c', ['tx_c'])];
  await confirmer.tick();
  chain.solid = 11;
  await confirmer.tick();
  await confirmer.tick();
  expect(appended).toEqual([]);
  expect(confirmer.cachedStates).toBe(1);
});

test('no pass while no block solidified since the last one, until idlePassMs: the open orders are not read every poll', async () => {
  const chain = { solid: 20 };
  const confirmer = new Confirmer({
    cfg: { ORDER_WAIT_WINDOW_MS: 60_000, CHAIN_POLL_MS: 60_000 } as any,
    pool: { query: async () => ({ rows: [] }) } as any,
    clock: new SteppedClock(1_000),
    bus: { append: async () => undefined } as any,
    reader: {
      solidifiedBlockNumber: async () => chain.solid,
      blockTransactions: async (_start: number, end: number) => ({ txs: [], last: end - 1 }),
      transaction: async () => undefined,
    } as any,
  });
  lists.allocating = [order('ord_d', ['tx_d'])];
  mockListReads.length = 0;
  await confirmer.tick();
  await confirmer.tick();
  expect(mockListReads).toEqual(['allocating', 'closing']);
  chain.solid = 21;
  await confirmer.tick();
  expect(mockListReads).toEqual(['allocating', 'closing', 'allocating', 'closing']);
});
