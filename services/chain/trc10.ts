/**
 * TRC-10 reads for the promo: a token by id, and the TransferAssetContract transactions of solidified
 * blocks. Asked with visible=false so byte fields (asset_name) arrive as unambiguous hex.
 */
import { TronWeb } from 'tronweb';
import type { Config } from '../platform/config';
import { ChainUnavailable } from './errors';
import { MAX_BLOCK_RANGE } from './reads';
import { createTronWeb } from './tron-client';

export interface Trc10Token {
  id: string;
  name: string;
  /** The issuer, Base58. */
  owner: string;
}

/** One successful TRC-10 transfer in a solidified block. */
export interface Trc10Transfer {
  txid: string;
  blockNumber: number;
  blockTimestamp: number;
  tokenId: string;
  from: string;
  to: string;
  amount: bigint;
}

const text = (hex: unknown) => (typeof hex === 'string' ? Buffer.from(hex, 'hex').toString('utf8') : '');
const base58 = (hex: unknown) => TronWeb.address.fromHex(String(hex));

export class Trc10Reader {
  constructor(private readonly tronWeb: TronWeb) {}

  static fromConfig(cfg: Pick<Config, 'TRON_FULL_HOST'>): Trc10Reader {
    return new Trc10Reader(createTronWeb(cfg));
  }

  private async call(path: string, payload: Record<string, unknown>): Promise<any> {
    try {
      const answer = await this.tronWeb.solidityNode.request<any>(`walletsolidity/${path}`, { ...payload, visible: false }, 'post');
      if (answer === null || typeof answer !== 'object') throw new Error('not a JSON object');
      if (typeof answer.Error === 'string') throw new Error(answer.Error);
      return answer;
    } catch (err) {
      throw new ChainUnavailable(`walletsolidity/${path}: ${(err as Error).message ?? String(err)}`, err);
    }
  }

  async token(id: string): Promise<Trc10Token | null> {
    const raw = await this.call('getassetissuebyid', { value: id });
    if (!raw.owner_address) return null;
    return { id: String(raw.id ?? id), name: text(raw.name), owner: base58(raw.owner_address) };
  }

  async solidHead(): Promise<number> {
    const raw = await this.call('getnowblock', {});
    return Number(raw?.block_header?.raw_data?.number ?? 0);
  }

  /** Successful TRC-10 transfers in solidified blocks [start, end), at most MAX_BLOCK_RANGE blocks. */
  async transfers(start: number, end: number): Promise<Trc10Transfer[]> {
    if (end <= start) return [];
    if (end - start > MAX_BLOCK_RANGE) throw new RangeError(`at most ${MAX_BLOCK_RANGE} blocks per read`);
    const raw = await this.call('getblockbylimitnext', { startNum: start, endNum: end });
    const out: Trc10Transfer[] = [];
    for (const block of raw.block ?? []) {
      const header = block.block_header?.raw_data ?? {};
      for (const tx of block.transactions ?? []) {
        const contract = tx.raw_data?.contract?.[0];
        if (contract?.type !== 'TransferAssetContract') continue;
        if ((tx.ret?.[0]?.contractRet ?? 'SUCCESS') !== 'SUCCESS') continue;
        const v = contract.parameter?.value ?? {};
        out.push({
          txid: String(tx.txID), blockNumber: Number(header.number ?? 0), blockTimestamp: Number(header.timestamp ?? 0),
          tokenId: text(v.asset_name), from: base58(v.owner_address), to: base58(v.to_address), amount: BigInt(v.amount ?? 0),
        });
      }
    }
    return out.sort((a, b) => a.blockNumber - b.blockNumber);
  }
}
