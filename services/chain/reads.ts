/**
 * Read side of the chain adapter: blocks, transactions, transaction info (logs), accounts and constant
 * contract calls, over the java-tron HTTP API (node-http.ts: kept-alive sockets). Every failure to read (network
 * error, timeout, non-2xx, unreadable answer) becomes ChainUnavailable; "not there (yet)" is undefined.
 * Addresses come back in Base58; amounts as bigint.
 */
import { TronWeb } from 'tronweb';
import type { Config } from '../platform/config';
import { ChainUnavailable } from './errors';
import { JsonRpc } from './json-rpc';
import { nodeHttpFor, type NodeHttp } from './node-http';
import { CHAIN_TIMEOUT_MS } from './tron-client';

/** Which view of the chain to read: the head (`full`) or the solidified part (`solid`). */
export type ChainView = 'full' | 'solid';

export interface BlockHeader {
  number: number;
  id: string;
  /** Block time, ms since the epoch. */
  timestamp: number;
}

/** One transaction of a block, reduced to what deposit and order code read. */
export interface ChainTx {
  txid: string;
  /** Contract type, e.g. TransferContract, TriggerSmartContract. */
  type: string;
  /** SUCCESS, REVERT, ... (java-tron `ret[0].contractRet`). */
  contractRet: string;
  owner: string | null;
  /** TransferContract receiver. */
  to: string | null;
  /** TransferContract amount (SUN). */
  amountSun: bigint | null;
  /** TriggerSmartContract contract address. */
  contract: string | null;
  /** Delegate/UndelegateResourceContract receiver. */
  receiver: string | null;
  /** Delegate/UndelegateResourceContract resource (ENERGY or BANDWIDTH). */
  resource: string | null;
  /** Delegate/UndelegateResourceContract stake (SUN). */
  balanceSun: bigint | null;
}

export interface Block extends BlockHeader {
  transactions: ChainTx[];
}

export interface TxLog {
  /** Position of the log within its transaction. */
  index: number;
  /** Emitting contract, Base58. */
  address: string;
  topics: string[];
  data: string;
}

export interface TxInfo {
  txid: string;
  blockNumber: number;
  blockTimestamp: number;
  /** java-tron `receipt.result` for contract calls (SUCCESS, REVERT, ...); null for plain transfers. */
  receiptResult: string | null;
  failed: boolean;
  fee: bigint;
  logs: TxLog[];
}

export interface ChainAccount {
  address: string;
  /** False when the address was never activated on chain. */
  exists: boolean;
  balanceSun: bigint;
}

export interface ConstantCallResult {
  ok: boolean;
  /** Hex of the first constant_result (no 0x). */
  result: string;
  energyUsed: number;
}

/** At most this many blocks per range read (java-tron's own limit). */
export const MAX_BLOCK_RANGE = 100;

export const base58 = (hexOrBase58: unknown): string | null => {
  if (typeof hexOrBase58 !== 'string' || hexOrBase58 === '') return null;
  if (hexOrBase58.startsWith('T')) return hexOrBase58;
  const hex = hexOrBase58.replace(/^0x/, '');
  return TronWeb.address.fromHex(hex.length === 40 ? `41${hex}` : hex);
};

function headerOf(raw: any): BlockHeader {
  const data = raw?.block_header?.raw_data;
  if (!data || typeof raw.blockID !== 'string') throw new ChainUnavailable('unreadable block');
  return { number: Number(data.number ?? 0), id: raw.blockID, timestamp: Number(data.timestamp ?? 0) };
}

function txOf(raw: any): ChainTx {
  const contract = raw?.raw_data?.contract?.[0];
  const value = contract?.parameter?.value ?? {};
  return {
    txid: String(raw.txID),
    type: String(contract?.type ?? ''),
    contractRet: String(raw?.ret?.[0]?.contractRet ?? 'SUCCESS'),
    owner: base58(value.owner_address),
    to: base58(value.to_address),
    amountSun: value.amount === undefined ? null : BigInt(value.amount),
    contract: base58(value.contract_address),
    receiver: base58(value.receiver_address),
    // java-tron omits the default enum value (BANDWIDTH) from the JSON.
    resource: value.balance === undefined ? null : String(value.resource ?? 'BANDWIDTH'),
    balanceSun: value.balance === undefined ? null : BigInt(value.balance),
  };
}

/** A java-tron TransactionInfo (visible) as read here. */
export function txInfoOf(raw: any): TxInfo {
  return {
    txid: String(raw.id),
    blockNumber: Number(raw.blockNumber ?? 0),
    blockTimestamp: Number(raw.blockTimeStamp ?? 0),
    receiptResult: raw.receipt?.result ?? null,
    failed: raw.result === 'FAILED',
    fee: BigInt(raw.fee ?? 0),
    logs: (raw.log ?? []).map((l: any, index: number) => ({
      index,
      address: base58(l.address) ?? '',
      topics: (l.topics ?? []).map((t: string) => t.toLowerCase()),
      data: String(l.data ?? ''),
    })),
  };
}

function blockOf(raw: any): Block {
  return { ...headerOf(raw), transactions: (raw.transactions ?? []).map(txOf) };
}

export class ChainReader {
  /** `jsonRpc`: the node's JSON-RPC, when configured (batched constant calls: transfer-facts.ts). */
  constructor(private readonly http: NodeHttp, readonly jsonRpc?: JsonRpc) {}

  static fromConfig(cfg: Pick<Config, 'TRON_FULL_HOST'> & Partial<Pick<Config, 'TRON_JSONRPC_URL'>>): ChainReader {
    const jsonRpc = cfg.TRON_JSONRPC_URL ? new JsonRpc(cfg.TRON_JSONRPC_URL, cfg.TRON_FULL_HOST, CHAIN_TIMEOUT_MS) : undefined;
    return new ChainReader(nodeHttpFor(cfg.TRON_FULL_HOST, CHAIN_TIMEOUT_MS), jsonRpc);
  }

  /** One java-tron HTTP call (visible addresses); every failure becomes ChainUnavailable. */
  async call<T = any>(view: ChainView, path: string, payload: Record<string, unknown> = {}): Promise<T> {
    const prefix = view === 'solid' ? 'walletsolidity' : 'wallet';
    try {
      const answer: any = await this.http.post(`${prefix}/${path}`, JSON.stringify({ ...payload, visible: true }));
      if (answer === null || typeof answer !== 'object') throw new Error('not a JSON object');
      if (typeof answer.Error === 'string') throw new Error(answer.Error);
      return answer as T;
    } catch (err) {
      throw new ChainUnavailable(`${prefix}/${path}: ${(err as Error).message ?? String(err)}`, err);
    }
  }

  /** The newest block of the view (head, or the newest solidified block). */
  async nowBlock(view: ChainView = 'full'): Promise<BlockHeader> {
    // The header only (getblock without detail): a busy head block's transactions cost both sides their JSON.
    return headerOf(await this.call(view, 'getblock', { detail: false }));
  }

  /** The newest block of the view with its transactions (one read where nowBlock and blockByNumber take two). */
  async headBlock(view: ChainView = 'full'): Promise<Block> {
    return blockOf(await this.call(view, 'getnowblock'));
  }

  async solidifiedBlockNumber(): Promise<number> {
    return (await this.nowBlock('solid')).number;
  }

  /** One block with its transactions; undefined when the view has no such block yet. */
  async blockByNumber(num: number, view: ChainView = 'solid'): Promise<Block | undefined> {
    const raw = await this.call(view, 'getblockbynum', { num });
    return raw.blockID ? blockOf(raw) : undefined;
  }

  /** Blocks [start, end) with their transactions (at most MAX_BLOCK_RANGE), those the view has. */
  async blockRange(start: number, end: number, view: ChainView = 'solid'): Promise<Block[]> {
    if (end <= start) return [];
    if (end - start > MAX_BLOCK_RANGE) throw new RangeError(`at most ${MAX_BLOCK_RANGE} blocks per read`);
    const raw = await this.call(view, 'getblockbylimitnext', { startNum: start, endNum: end });
    return (raw.block ?? []).map(blockOf).sort((a: Block, b: Block) => a.number - b.number);
  }

  /**
   * The transaction ids in blocks [start, end) of the view (at most MAX_BLOCK_RANGE), and the number of the
   * last block read when every block from `start` up to it was there (null: none). Of the transactions
   * `wanted` names, the transaction as the block holds it (`txs`, contract fields and result); nothing else
   * is parsed.
   */
  async blockTxIds(
    start: number, end: number, view: ChainView = 'full', wanted: ReadonlySet<string> | null = null,
  ): Promise<{ ids: string[]; last: number | null; txs: Map<string, ChainTx> }> {
    const txs = new Map<string, ChainTx>();
    if (end <= start) return { ids: [], last: null, txs };
    if (end - start > MAX_BLOCK_RANGE) throw new RangeError(`at most ${MAX_BLOCK_RANGE} blocks per read`);
    const raw = await this.call(view, 'getblockbylimitnext', { startNum: start, endNum: end });
    const blocks = (raw.block ?? []).map((b: any) => ({ number: headerOf(b).number, txs: (b.transactions ?? []) as Array<{ txID?: string }> }))
      .sort((a: { number: number }, b: { number: number }) => a.number - b.number);
    const ids: string[] = [];
    let last: number | null = null;
    for (const b of blocks) {
      if (b.number !== (last ?? start - 1) + 1) break;
      for (const t of b.txs) {
        if (typeof t.txID !== 'string') continue;
        ids.push(t.txID);
        if (wanted?.has(t.txID)) txs.set(t.txID, txOf(t));
      }
      last = b.number;
    }
    return { ids, last, txs };
  }

  /** Transaction info with its logs; undefined until the transaction is in a block of the view. */
  async transactionInfo(txid: string, view: ChainView = 'solid'): Promise<TxInfo | undefined> {
    const raw = await this.call(view, 'gettransactioninfobyid', { value: txid });
    return raw.id ? txInfoOf(raw) : undefined;
  }

  /** One transaction as a block of the view holds it (contract fields and result); undefined until then. */
  async transaction(txid: string, view: ChainView = 'solid'): Promise<ChainTx | undefined> {
    // The info first: while the transaction is not in a block (the usual answer) that is the only read.
    const info = await this.transactionInfo(txid, view);
    if (!info) return undefined;
    const raw = await this.call(view, 'gettransactionbyid', { value: txid });
    if (!raw.txID) return undefined;
    const tx = txOf(raw);
    // A transaction that failed in its block reports FAILED in its info whatever its `ret` says.
    return info.failed && tx.contractRet === 'SUCCESS' ? { ...tx, contractRet: 'FAILED' } : tx;
  }

  /** Stake (SUN) `from` has delegated to `to` now, per resource (getdelegatedresourcev2, locked and not). */
  async delegated(from: string, to: string, view: ChainView = 'full'): Promise<{ ENERGY: bigint; BANDWIDTH: bigint }> {
    const raw = await this.call(view, 'getdelegatedresourcev2', { fromAddress: from, toAddress: to });
    const out = { ENERGY: 0n, BANDWIDTH: 0n };
    for (const d of raw.delegatedResource ?? []) {
      out.ENERGY += BigInt(d.frozen_balance_for_energy ?? 0);
      out.BANDWIDTH += BigInt(d.frozen_balance_for_bandwidth ?? 0);
    }
    return out;
  }

  /** Every address `from` delegates stake to (getdelegatedresourceaccountindexv2 toAccounts). */
  async delegatesTo(from: string, view: ChainView = 'full'): Promise<string[]> {
    const raw = await this.call(view, 'getdelegatedresourceaccountindexv2', { value: from });
    return (raw.toAccounts ?? []).map((a: string) => base58(a)).filter((a: string | null): a is string => a !== null);
  }

  /** An account's activation and TRX balance. */
  async account(address: string, view: ChainView = 'full'): Promise<ChainAccount> {
    const raw = await this.call(view, 'getaccount', { address });
    const exists = typeof raw.address === 'string' || raw.create_time !== undefined;
    return { address, exists, balanceSun: BigInt(raw.balance ?? 0) };
  }

  /**
   * Bandwidth the address can spend now: what is left of its free daily allowance plus what staked or
   * delegated bandwidth is left (getaccountresource); null when the address is not activated (no resources).
   */
  async bandwidthAvailable(address: string, view: ChainView = 'full'): Promise<number | null> {
    const raw = await this.call(view, 'getaccountresource', { address });
    if (raw.freeNetLimit === undefined && raw.NetLimit === undefined) return null;
    const free = Number(raw.freeNetLimit ?? 0) - Number(raw.freeNetUsed ?? 0);
    const staked = Number(raw.NetLimit ?? 0) - Number(raw.NetUsed ?? 0);
    return Math.max(0, free) + Math.max(0, staked);
  }

  /** The free bandwidth a newly activated address gets per day (chain parameter getFreeNetLimit). */
  async freeNetLimit(view: ChainView = 'full'): Promise<number> {
    const raw = await this.call(view, 'getchainparameters');
    const entry = (raw.chainParameter ?? []).find((p: { key: string }) => p.key === 'getFreeNetLimit');
    return Number(entry?.value ?? 0);
  }

  /**
   * A read-only contract call (triggerconstantcontract). `parameter` is the ABI-encoded argument hex
   * (no selector); `functionSelector` like `slot0()`.
   */
  async triggerConstant(
    contract: string, functionSelector: string, parameter = '', options: { owner?: string; view?: ChainView } = {},
  ): Promise<ConstantCallResult> {
    const raw = await this.call(options.view ?? 'full', 'triggerconstantcontract', {
      owner_address: options.owner ?? contract,
      contract_address: contract,
      function_selector: functionSelector,
      parameter,
    });
    const result = raw.constant_result?.[0];
    if (typeof result !== 'string' && raw.result?.code) return { ok: false, result: '', energyUsed: 0 };
    return { ok: raw.result?.result === true && !raw.result?.message, result: String(result ?? ''), energyUsed: Number(raw.energy_used ?? 0) };
  }
}
