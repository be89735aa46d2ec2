/**
 * Deposit receipts from chain facts: a direct TRX transfer, TRX a contract sent (internal transactions not
 * rejected), USDT Transfer logs of the USDT contract whatever was called; failed transactions and other
 * tokens' logs ignored; ids stable for direct transfers and distinct per log / internal transaction.
 */
import { depositIdOf, internalLogIndex } from '../../services/domain/deposits';
import type { Block, ChainTx } from '../../services/chain/reads';
import type { InternalTx, TxInfoWithInternals } from '../../services/chain/receipts';
import { needsInfos, receiptsOf, TRANSFER_TOPIC } from '../../services/deposits/receipts';

const USDT = 'TUsdt';
const OTHER = 'TOther';
/** Test addresses are 'T' + the last 40 hex digits' tail: enough to tell them apart. */
const fromHex = (hex41: string) => `T${hex41.slice(-6)}`;
const word = (tail: string) => tail.padStart(64, '0');

function tx(over: Partial<ChainTx>): ChainTx {
  return { txid: 'x', type: 'TriggerSmartContract', contractRet: 'SUCCESS', owner: 'TCaller', to: null, amountSun: null, contract: 'TForwarder', receiver: null, resource: null, balanceSun: null, memo: null, ...over };
}

function info(txid: string, over: Partial<TxInfoWithInternals> = {}): TxInfoWithInternals {
  return { txid, blockNumber: 7, blockTimestamp: 1000, receiptResult: 'SUCCESS', failed: false, fee: 0n, logs: [], internalTxs: [], ...over };
}

function internal(index: number, to: string, value: bigint, rejected = false): InternalTx {
  return { index, hash: `h${index}`, caller: 'TForwarder', to, callValueSun: value, rejected, note: 'call' };
}

const transferLog = (index: number, address: string, toTail: string, amount: bigint) => ({
  index, address, topics: [TRANSFER_TOPIC, word('f0f0f0'), word(toTail)], data: amount.toString(16).padStart(64, '0'),
});

describe('deposit receipts', () => {
  it('keeps the ids of direct transfers and numbers logs and internal transactions apart', () => {
    expect(depositIdOf('t1', -1)).toBe('t1');
    expect(depositIdOf('t1', 0)).toBe('t1:0');
    expect(depositIdOf('t1', internalLogIndex(0))).toBe('t1:internal:0');
    expect(depositIdOf('t1', internalLogIndex(3))).toBe('t1:internal:3');
  });

  it('reads every path a payment can take, once each', () => {
    const block: Block = {
      number: 7, id: 'b7', timestamp: 1000,
      transactions: [
        tx({ txid: 'trx', type: 'TransferContract', to: 'TDep', amountSun: 5n, contract: null }),
        tx({ txid: 'usdt', contract: USDT }),
        tx({ txid: 'batch' }),
        tx({ txid: 'reverted', contractRet: 'REVERT' }),
      ],
    };
    const infos = new Map([
      ['usdt', info('usdt', { logs: [transferLog(0, USDT, 'aaaaaa', 10n)] })],
      ['batch', info('batch', {
        logs: [transferLog(0, OTHER, 'aaaaaa', 99n), transferLog(1, USDT, 'aaaaaa', 7n), transferLog(2, USDT, 'bbbbbb', 0n)],
        internalTxs: [internal(0, USDT, 0n), internal(1, 'TDep', 3n), internal(2, 'TDep', 4n, true), internal(3, 'TDep', 1n)],
      })],
    ]);
    expect(needsInfos(block)).toBe(true);
    const receipts = receiptsOf(block, infos, USDT, fromHex);
    expect(receipts.map((r) => [r.depositId, r.kind, r.asset, r.address, r.amount])).toEqual([
      ['trx', 'transfer', 'TRX', 'TDep', 5n],
      ['usdt:0', 'log', 'USDT', 'Taaaaaa', 10n],
      ['batch:internal:1', 'internal', 'TRX', 'TDep', 3n],
      ['batch:internal:3', 'internal', 'TRX', 'TDep', 1n],
      ['batch:1', 'log', 'USDT', 'Taaaaaa', 7n],
    ]);
    expect(receipts.find((r) => r.depositId === 'batch:internal:1')).toMatchObject({ sender: 'TForwarder', logIndex: -3, blockNumber: 7, blockTimestamp: 1000 });
    expect(receipts.find((r) => r.depositId === 'batch:1')).toMatchObject({ sender: 'Tf0f0f0', logIndex: 1 });
  });

  it('ignores a failed transaction and needs infos only for successful contract calls', () => {
    const block: Block = { number: 8, id: 'b8', timestamp: 2000, transactions: [tx({ txid: 'f' })] };
    const failed = new Map([['f', info('f', { failed: true, logs: [transferLog(0, USDT, 'aaaaaa', 1n)], internalTxs: [internal(0, 'TDep', 1n)] })]]);
    expect(receiptsOf(block, failed, USDT, fromHex)).toEqual([]);
    expect(needsInfos({ ...block, transactions: [tx({ contractRet: 'REVERT' }), tx({ type: 'TransferContract' })] })).toBe(false);
    // A successful call without its info is a read to retry, never a silent skip.
    expect(() => receiptsOf(block, new Map(), USDT, fromHex)).toThrow(/no transaction info/);
  });
});
