/**
 * java-tron's Ethereum-compatible JSON-RPC service (node.jsonrpc.httpFullNodeEnable; TronGrid serves it at
 * /jsonrpc), only what the service reads through it: `eth_call` at `latest`, one call or a batch (a JSON
 * array, answered in order, as JSON-RPC 2.0 and jsonrpc4j's servlet answer it). Shapes from java-tron's
 * framework/src/main/java/org/tron/core/services/jsonrpc/TronJsonRpcImpl.java (getCall, call): the result
 * is the constant call's return data as 0x-hex; a revert is error -32000 "REVERT opcode executed" with the
 * return data as `data`; a tag other than latest (a QUANTITY, earliest, pending) is refused -32602.
 */
import type { Router } from 'express';
import { dryRun } from '../actuators/trigger';
import { parseAddress } from '../crypto/address';
import type { DevnetNode } from '../node';
import { parseContract } from '../tx/contracts';

interface Call {
  jsonrpc?: string;
  id?: unknown;
  method?: unknown;
  params?: unknown;
}

const ZERO_OWNER = '41' + '00'.repeat(20);
const NO_CONTRACT = 'Contract validate error : No contract or not a valid smart contract';

const error = (id: unknown, code: number, message: string, data?: string) => ({ jsonrpc: '2.0', id: id ?? null, error: { code, message, ...(data !== undefined ? { data } : {}) } });

export function jsonRpcRoutes(router: Router, node: DevnetNode): void {
  const ethCall = (id: unknown, params: unknown) => {
    const [args, tag] = Array.isArray(params) ? params : [];
    if (tag !== undefined && String(tag).toLowerCase() !== 'latest') return error(id, -32602, 'TAG [earliest | pending] not supported, QUANTITY not supported, just support TAG as latest');
    const a = (args ?? {}) as Record<string, unknown>;
    const to = parseAddress(a.to);
    if (!to) return error(id, -32602, 'invalid address hash value');
    const owner = parseAddress(a.from) ?? ZERO_OWNER;
    const contract = parseContract('TriggerSmartContract', { owner_address: owner, contract_address: to, data: String(a.data ?? '').replace(/^0x/, ''), call_value: 0 });
    if (contract.type !== 'TriggerSmartContract') return error(id, -32602, 'invalid call');
    const result = dryRun(node.chain.context(node.chain.pendingView()), contract);
    if (!result) return error(id, -32000, NO_CONTRACT);
    const data = `0x${result.returnData.toString('hex')}`;
    return result.ok ? { jsonrpc: '2.0', id: id ?? null, result: data } : error(id, -32000, 'REVERT opcode executed', data);
  };
  const answer = (call: Call) => {
    if (call === null || typeof call !== 'object' || typeof call.method !== 'string') return error(null, -32600, 'Invalid Request');
    if (call.method === 'eth_call') return ethCall(call.id, call.params);
    return error(call.id, -32601, `the method ${call.method} does not exist/is not available`);
  };

  router.post('/jsonrpc', (req, res) => {
    let body: unknown;
    try {
      body = JSON.parse(typeof req.body === 'string' ? req.body : '');
    } catch {
      return res.status(200).json(error(null, -32700, 'JSON parse error'));
    }
    res.status(200).json(Array.isArray(body) ? body.map((c) => answer(c as Call)) : answer(body as Call));
  });
}
