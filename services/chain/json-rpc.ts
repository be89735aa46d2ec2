/**
 * java-tron's Ethereum-compatible JSON-RPC (node.jsonrpc.httpFullNodeEnable, TronGrid's /jsonrpc): here only
 * `eth_call` at `latest`, many in one JSON-RPC batch, so reading a token balance for each of a hundred
 * receivers is one node call, not a hundred (java-tron's HTTP API has no batch). Answers come back in call
 * order; each is the call's return data (0x-hex) or the node's error for that call.
 */
import { TronWeb } from 'tronweb';
import { nodeHttpFor, type NodeHttp } from './node-http';

export interface EthCall {
  /** Base58 contract address. */
  to: string;
  /** 0x-hex call data (selector and arguments). */
  data: string;
}

export type EthCallAnswer = { ok: true; data: string } | { ok: false; code: number; message: string };

/** Calls per batch: java-tron's node.jsonrpc.maxBatchSize bounds it; an estimate asks at most 100. */
export const MAX_BATCH = 100;

export class JsonRpc {
  private readonly http: NodeHttp;
  private readonly path: string;

  /** `url`: an absolute URL, or a path on `fullHost` (TronGrid serves /jsonrpc beside /wallet). */
  constructor(url: string, fullHost: string, timeoutMs: number) {
    const target = new URL(url, fullHost.replace(/\/*$/, '/'));
    this.http = nodeHttpFor(target.origin, timeoutMs);
    this.path = target.pathname.replace(/^\/+/, '') + target.search;
  }

  /** One batch per MAX_BATCH calls; throws (the caller reads otherwise) when the node answers no batch. */
  async ethCalls(calls: readonly EthCall[]): Promise<EthCallAnswer[]> {
    const out: EthCallAnswer[] = [];
    for (let start = 0; start < calls.length; start += MAX_BATCH) {
      const part = calls.slice(start, start + MAX_BATCH);
      const body = part.map((c, i) => ({
        jsonrpc: '2.0', id: i, method: 'eth_call', params: [{ to: `0x${TronWeb.address.toHex(c.to).replace(/^41/, '')}`, data: c.data }, 'latest'],
      }));
      const answer = await this.http.post(this.path, JSON.stringify(body));
      if (!Array.isArray(answer)) throw new Error(`jsonrpc: not a batch answer: ${JSON.stringify(answer).slice(0, 200)}`);
      const byId = new Map(answer.map((a: any) => [a?.id, a]));
      part.forEach((_c, i) => {
        const a = byId.get(i);
        if (typeof a?.result === 'string') out.push({ ok: true, data: a.result });
        else out.push({ ok: false, code: Number(a?.error?.code ?? 0), message: String(a?.error?.message ?? 'no answer for this call') });
      });
    }
    return out;
  }
}
