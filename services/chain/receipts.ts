/**
 * Read side of the chain adapter for what a transaction did beyond its own contract: the transaction infos
 * of a whole block (`gettransactioninfobyblocknum`, one call per block instead of one per transaction),
 * with their logs and internal transactions (java-tron's `internal_transactions`: message calls a contract
 * made, TRX carried in `callValueInfo`). Nodes report internal transactions only with `vm.saveInternalTx`
 * on (TronGrid's do); without it TRX forwarded by a contract is not visible to any reader.
 */
import { base58, txInfoOf, type ChainReader, type ChainView, type TxInfo } from './reads';
import { ChainUnavailable } from './errors';

/** One entry of TransactionInfo.internal_transactions. */
export interface InternalTx {
  /** Position in the transaction's internal_transactions (stable: the node's execution order). */
  index: number;
  hash: string;
  /** The contract that made the call, Base58. */
  caller: string;
  /** The receiver of the call and of its TRX, Base58. */
  to: string;
  /** TRX (SUN) the call carried: callValueInfo entries without a tokenId. */
  callValueSun: bigint;
  /** The call, or a call it ran in, failed: nothing it moved stayed. */
  rejected: boolean;
  /** "call", "create", "suicide". */
  note: string;
}

export interface TxInfoWithInternals extends TxInfo {
  internalTxs: InternalTx[];
}

const noteText = (hex: unknown) => (typeof hex === 'string' ? Buffer.from(hex, 'hex').toString('utf8') : '');

function internalTxOf(raw: any, index: number): InternalTx {
  const trx = (raw.callValueInfo ?? []).filter((v: any) => !v.tokenId);
  return {
    index,
    hash: String(raw.hash ?? ''),
    caller: base58(raw.caller_address) ?? '',
    to: base58(raw.transferTo_address) ?? '',
    callValueSun: trx.reduce((sum: bigint, v: any) => sum + BigInt(v.callValue ?? 0), 0n),
    rejected: raw.rejected === true,
    note: noteText(raw.note),
  };
}

/** Every transaction info of block `num` in the view, by txid (empty when the view has not got the block). */
export async function blockTxInfos(reader: ChainReader, num: number, view: ChainView = 'solid'): Promise<Map<string, TxInfoWithInternals>> {
  const raw = await reader.call<any>(view, 'gettransactioninfobyblocknum', { num });
  if (!Array.isArray(raw)) {
    if (raw && typeof raw === 'object' && Object.keys(raw).length === 0) return new Map();
    throw new ChainUnavailable(`gettransactioninfobyblocknum ${num}: not a list`);
  }
  const infos = new Map<string, TxInfoWithInternals>();
  for (const r of raw) {
    infos.set(String(r.id), { ...txInfoOf(r), internalTxs: (r.internal_transactions ?? []).map(internalTxOf) });
  }
  return infos;
}
