/**
 * What a block paid to addresses, read from the chain facts (pure): TRX transfers (the transaction's own
 * TransferContract), TRX that contracts moved (internal transactions not rejected, with a call value), and
 * USDT `Transfer` logs of the USDT contract whatever contract the transaction called (a direct transfer, a
 * batch payout, a multisig wallet). Only transactions that succeeded count. Each receipt has the deposit id
 * it is credited under: `txid` / `txid:internal:I` / `txid:logIndex`, so a direct USDT transfer keeps the
 * id it always had (its Transfer log is log 0 of its transaction).
 */
import type { Block } from '../chain/reads';
import type { TxInfoWithInternals } from '../chain/receipts';
import { depositIdOf, internalLogIndex, type DepositFacts } from '../domain/deposits';
import { ChainUnavailable } from '../chain/errors';

/** keccak256("Transfer(address,address,uint256)"). */
export const TRANSFER_TOPIC = 'ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

export type ReceiptKind = 'transfer' | 'internal' | 'log';

/** A payment to an address as the chain shows it: the deposit facts short of the watcher's confirmations. */
export interface Receipt extends Omit<DepositFacts, 'confirmationsRequired'> {
  kind: ReceiptKind;
  /** A TRX transfer's memo (the desk reads a receiver address from it); null otherwise. */
  memo: string | null;
}

/** Whether the block has a successful contract call, whose infos (logs, internal transactions) must be read. */
export function needsInfos(block: Block): boolean {
  return block.transactions.some((tx) => tx.contractRet === 'SUCCESS' && (tx.type === 'TriggerSmartContract' || tx.type === 'CreateSmartContract'));
}

/** A 32-byte topic holding an address, as Base58 (fromHex is TronWeb's, passed in to keep this pure of I/O). */
type FromHex = (hex41: string) => string;

/**
 * Every receipt of the block. `infos` are the block's transaction infos by txid (needed when needsInfos);
 * `usdt` the USDT contract, Base58 (null: no USDT receipts).
 */
export function receiptsOf(block: Block, infos: Map<string, TxInfoWithInternals>, usdt: string | null, fromHex: FromHex): Receipt[] {
  const out: Receipt[] = [];
  const base = { blockNumber: block.number, blockTimestamp: block.timestamp };
  for (const tx of block.transactions) {
    if (tx.contractRet !== 'SUCCESS') continue;
    if (tx.type === 'TransferContract' && tx.to && tx.amountSun && tx.amountSun > 0n) {
      out.push({ ...base, depositId: depositIdOf(tx.txid, -1), kind: 'transfer', asset: 'TRX', address: tx.to, sender: tx.owner, txid: tx.txid, logIndex: -1, amount: tx.amountSun, memo: tx.memo });
    }
    if (tx.type !== 'TriggerSmartContract' && tx.type !== 'CreateSmartContract') continue;
    const info = infos.get(tx.txid);
    if (!info) throw new ChainUnavailable(`no transaction info for ${tx.txid} in block ${block.number}`);
    if (info.failed) continue;
    for (const it of info.internalTxs) {
      if (it.rejected || it.callValueSun <= 0n || !it.to) continue;
      const logIndex = internalLogIndex(it.index);
      out.push({ ...base, depositId: depositIdOf(tx.txid, logIndex), kind: 'internal', asset: 'TRX', address: it.to, sender: it.caller || null, txid: tx.txid, logIndex, amount: it.callValueSun, memo: null });
    }
    if (!usdt) continue;
    for (const log of info.logs) {
      if (log.address !== usdt || log.topics[0] !== TRANSFER_TOPIC || log.topics.length < 3) continue;
      const amount = BigInt(`0x${log.data || '0'}`);
      if (amount <= 0n) continue;
      out.push({
        ...base, depositId: depositIdOf(tx.txid, log.index), kind: 'log', asset: 'USDT', address: fromHex(`41${log.topics[2].slice(-40)}`),
        sender: fromHex(`41${log.topics[1].slice(-40)}`), txid: tx.txid, logIndex: log.index, amount, memo: null,
      });
    }
  }
  return out;
}
