/**
 * The receivers' balances of an estimate as one JSON-RPC eth_call batch (services/chain/transfer-facts.ts):
 * the same facts as one triggerconstantcontract per balance, one node call for all of them, and, against a
 * node that serves no JSON-RPC at the configured path, the same facts read one by one.
 */
import { randomBytes } from 'node:crypto';
import { TronWeb } from 'tronweb';
import { JsonRpc } from '../../services/chain/json-rpc';
import { ChainReader } from '../../services/chain/reads';
import { TransferFactsReader } from '../../services/chain/transfer-facts';
import { NodeHttp } from '../../services/chain/node-http';
import { startDevnet, type Devnet } from './start-devnet';

jest.setTimeout(60_000);

let devnet: Devnet;
beforeAll(async () => (devnet = await startDevnet()));
afterAll(() => devnet?.stop());

const readerWith = (jsonRpcPath?: string) => new TransferFactsReader(new ChainReader(new NodeHttp(devnet.url, { timeoutMs: 5_000 }), jsonRpcPath ? new JsonRpc(jsonRpcPath, devnet.url, 5_000) : undefined));
const fresh = () => TronWeb.address.fromHex('41' + randomBytes(20).toString('hex'));

test('batched balances give the facts one call each gives, in one node call, and fall back when the node has no JSON-RPC', async () => {
  const usdt = devnet.accounts.usdt_contract;
  const [a, b, c] = devnet.accounts.customers.map((w) => w.address);
  const newcomer = fresh();
  // Holders and fresh receivers, a receiver twice, and a sender without the tokens (its simulation reverts).
  const items = [
    { from: a, to: b, amount: 1_000_000n, token: usdt }, { from: a, to: newcomer, amount: 2_000_000n, token: usdt },
    { from: b, to: c, amount: 3n, token: usdt }, { from: c, to: newcomer, amount: 4n, token: usdt }, { from: fresh(), to: a, amount: 5n, token: usdt },
  ];
  const perItem = readerWith();
  const batched = readerWith('/jsonrpc');
  const broken = readerWith('/no-json-rpc-here');
  expect([perItem.batchBalances, batched.batchBalances]).toEqual([false, true]);
  const head = await perItem.head();
  const one = await perItem.facts(head.number, items);
  const many = await batched.facts(head.number, items);
  const fallback = await broken.facts(head.number, items);
  expect(many).toEqual(one);
  expect(fallback).toEqual(one);
  expect(one.map((f) => f.receiverTokenBalance > 0n)).toEqual([true, false, true, false, true]);
  // 5 simulations, 4 senders; balances: 4 distinct receivers one by one, or 1 batch.
  expect([perItem.nodeCalls, batched.nodeCalls]).toEqual([1 + 5 + 4 + 4, 5 + 4 + 1]);
  // The failed batch counted, then the four balances one by one; later requests skip the batch for a while.
  expect(broken.nodeCalls).toBe(5 + 4 + 1 + 4);
  await broken.facts(head.number, [{ from: a, to: fresh(), amount: 6n, token: usdt }]);
  expect(broken.nodeCalls).toBe(5 + 4 + 1 + 4 + 1 + 1);
});
