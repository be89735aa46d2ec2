/**
 * Write side of the chain adapter: builds and signs delegations (Stake 2.0 delegateResource, without lock
 * so they can be reclaimed at any time), undelegations and activation transfers with a pool key, against
 * one reference block whose expiration the caller chooses; broadcasts stored signed transactions; reads
 * the stake facts the pool needs (ratio, delegatable stake, what is delegated to a receiver).
 * Failures to talk to the node are ChainUnavailable; a refusal is an answer, not an exception.
 */
import type { Config } from '../platform/config';
import { parseOwnJson, stringifyJson } from '../platform/json';
import type { Ratio } from './allocation';
import { ChainUnavailable } from './errors';
import { nodeHttpFor, type NodeHttp } from './node-http';
import type { Signer } from './pool-keys';
import { CHAIN_TIMEOUT_MS } from './tron-client';
import { buildAndSign, type ContractValue } from './tx-build';

export type ChainResource = 'ENERGY' | 'BANDWIDTH';

/** TAPOS reference and expiration shared by the transactions signed in one pass. */
export interface RefBlock {
  ref_block_bytes: string;
  ref_block_hash: string;
  /** Chain ms; past it (by head block time) a transaction can never land. */
  expiration: number;
  timestamp: number;
  /** The reference block's number (not signed: TronWeb copies only the four fields above). */
  number?: number;
}

/**
 * Range of the per-transaction nonce in raw_data.timestamp. java-tron validates a transaction's expiration
 * and TAPOS, never its timestamp, so the timestamp carries the nonce: ref time + (nonce mod range). Two
 * transactions are byte-identical only with the same contract, reference block and nonce residue; a pass
 * signs against a fresh head and at most a few hundred transactions, far below 2^20 per reference block.
 * Free in bandwidth: a millisecond time plus under 2^20 keeps its 6-byte varint. (A memo in raw_data.data
 * would cost its bytes in bandwidth and, since TIP-387, a memo fee of 1 TRX per transaction on mainnet.)
 */
export const NONCE_RANGE = 1n << 20n;

/** The reference block with this transaction's nonce in its timestamp. */
export function uniqueRef(ref: RefBlock, nonce: bigint): RefBlock {
  return { ...ref, timestamp: ref.timestamp + Number(nonce % NONCE_RANGE) };
}

export interface SignedTx {
  txId: string;
  /** The signed transaction as JSON: stored, then broadcast as is. */
  signedTx: string;
}

export type BroadcastOutcome =
  | { kind: 'accepted' }
  /** Already known to the node (DUP_TRANSACTION_ERROR): a re-broadcast of the same bytes, fine. */
  | { kind: 'duplicate' }
  /** TRANSACTION_EXPIRATION_ERROR or TAPOS_ERROR: these bytes can never land. */
  | { kind: 'expired'; code: string; message: string }
  /** Refused now (e.g. CONTRACT_VALIDATE_ERROR); may be accepted later (receiver activated meanwhile). */
  | { kind: 'refused'; code: string; message: string };

/** Chain ms of a signed transaction's expiration. */
export function expirationOf(signedTx: string): number {
  return Number((parseOwnJson(signedTx) as any).raw_data.expiration);
}

function decodeMessage(message: unknown): string {
  if (typeof message !== 'string') return '';
  return /^[0-9a-fA-F]+$/.test(message) && message.length % 2 === 0 ? Buffer.from(message, 'hex').toString('utf8') : message;
}

export class ChainWriter {
  constructor(private readonly http: NodeHttp) {}

  static fromConfig(cfg: Pick<Config, 'TRON_FULL_HOST'>): ChainWriter {
    return new ChainWriter(nodeHttpFor(cfg.TRON_FULL_HOST, CHAIN_TIMEOUT_MS));
  }

  private async node<T = any>(path: string, payload: Record<string, unknown>): Promise<T> {
    try {
      const answer: any = await this.http.post(`wallet/${path}`, JSON.stringify({ ...payload, visible: true }));
      if (answer === null || typeof answer !== 'object') throw new Error('not a JSON object');
      if (typeof answer.Error === 'string') throw new Error(answer.Error);
      return answer as T;
    } catch (err) {
      throw new ChainUnavailable(`wallet/${path}: ${(err as Error).message ?? String(err)}`, err);
    }
  }

  /** The head block as TAPOS reference, with transactions expiring `lifetimeMs` (chain time) after it. */
  async refBlock(lifetimeMs: number): Promise<RefBlock> {
    // The header only (getblock without detail): the head block's transactions are not needed here.
    const raw = await this.node('getblock', { detail: false });
    const header = raw?.block_header?.raw_data;
    if (!header || typeof raw.blockID !== 'string') throw new ChainUnavailable('unreadable head block');
    const number = Number(header.number ?? 0);
    const timestamp = Number(header.timestamp ?? 0);
    return {
      ref_block_bytes: number.toString(16).slice(-4).padStart(4, '0'),
      ref_block_hash: raw.blockID.slice(16, 32),
      expiration: timestamp + lifetimeMs,
      timestamp,
      number,
    };
  }

  /** Built and signed here (tx-build.ts): no call to the node, the signer's address known already. */
  private sign(what: string, signer: Signer, contract: ContractValue, ref: RefBlock): SignedTx {
    try {
      const { txID, json } = buildAndSign(contract, ref, signer.privateKey);
      return { txId: txID, signedTx: stringifyJson(json) };
    } catch (err) {
      throw new ChainUnavailable(`${what}: ${(err as Error).message ?? String(err)}`, err);
    }
  }

  async signDelegate(signer: Signer, receiver: string, resource: ChainResource, sun: bigint, ref: RefBlock): Promise<SignedTx> {
    return this.sign('delegateResource', signer, { type: 'DelegateResourceContract', owner: signer.address, receiver, resource, balance: sun }, ref);
  }

  async signUndelegate(signer: Signer, receiver: string, resource: ChainResource, sun: bigint, ref: RefBlock): Promise<SignedTx> {
    return this.sign('undelegateResource', signer, { type: 'UnDelegateResourceContract', owner: signer.address, receiver, resource, balance: sun }, ref);
  }

  async signTransfer(signer: Signer, to: string, sun: bigint, ref: RefBlock): Promise<SignedTx> {
    return this.sign('sendTrx', signer, { type: 'TransferContract', owner: signer.address, to, amount: sun }, ref);
  }

  /** Broadcasts stored bytes; the same bytes again answer `duplicate`. */
  async broadcast(signedTx: string): Promise<BroadcastOutcome> {
    let answer: any;
    try {
      // The stored text is the signed transaction's JSON: sent as it is, not parsed and written again.
      answer = await this.http.post('wallet/broadcasttransaction', signedTx);
    } catch (err) {
      throw new ChainUnavailable(`broadcasttransaction: ${(err as Error).message ?? String(err)}`, err);
    }
    if (answer?.result === true) return { kind: 'accepted' };
    const code = String(answer?.code ?? 'UNKNOWN');
    const message = decodeMessage(answer?.message);
    if (code === 'DUP_TRANSACTION_ERROR') return { kind: 'duplicate' };
    if (code === 'TRANSACTION_EXPIRATION_ERROR' || code === 'TAPOS_ERROR') return { kind: 'expired', code, message };
    if (answer === null || typeof answer !== 'object' || answer.code === undefined) throw new ChainUnavailable(`broadcasttransaction: unreadable answer`);
    return { kind: 'refused', code, message };
  }

  /** Resource units per staked TRX as the chain states it now (Total*Limit / Total*Weight). */
  async ratio(address: string, resource: ChainResource): Promise<Ratio> {
    const raw = await this.node('getaccountresource', { address });
    const limit = BigInt(resource === 'ENERGY' ? raw.TotalEnergyLimit ?? 0 : raw.TotalNetLimit ?? 0);
    const weight = BigInt(resource === 'ENERGY' ? raw.TotalEnergyWeight ?? 0 : raw.TotalNetWeight ?? 0);
    if (limit <= 0n || weight <= 0n) throw new ChainUnavailable('the chain reports no resource ratio');
    return { limit, weight };
  }

  /** Stake (SUN) this address can delegate now (getcandelegatedmaxsize). */
  async delegatableSun(address: string, resource: ChainResource): Promise<bigint> {
    const raw = await this.node('getcandelegatedmaxsize', { owner_address: address, type: resource === 'ENERGY' ? 1 : 0 });
    return BigInt(raw.max_size ?? 0);
  }

  /** Stake (SUN) `from` has delegated to `to` for the resource, as the head state says. */
  async delegatedSun(from: string, to: string, resource: ChainResource): Promise<bigint> {
    const raw = await this.node('getdelegatedresourcev2', { fromAddress: from, toAddress: to });
    let total = 0n;
    for (const d of raw.delegatedResource ?? []) {
      total += BigInt((resource === 'ENERGY' ? d.frozen_balance_for_energy : d.frozen_balance_for_bandwidth) ?? 0);
    }
    return total;
  }

  /** Block number and time of the head. */
  async head(): Promise<{ number: number; timestamp: number }> {
    const raw = await this.node('getblock', { detail: false });
    return { number: Number(raw?.block_header?.raw_data?.number ?? 0), timestamp: Number(raw?.block_header?.raw_data?.timestamp ?? 0) };
  }
}
