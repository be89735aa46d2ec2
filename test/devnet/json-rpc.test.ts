/**
 * The devnet's JSON-RPC (java-tron's TronJsonRpcImpl eth_call, what estimates batch balances through):
 * a batch answered in order with what triggerconstantcontract answers for the same calls, a revert as error
 * -32000 with its return data, a tag other than latest and an unknown method refused; and the service's
 * client (services/chain/json-rpc.ts) reading it, by a path on the node's URL.
 */
import { TronWeb } from 'tronweb';
import { JsonRpc } from '../../services/chain/json-rpc';
import { startDevnet, type Devnet } from './start-devnet';

jest.setTimeout(60_000);

let devnet: Devnet;
beforeAll(async () => (devnet = await startDevnet()));
afterAll(() => devnet?.stop());

const word = (hex: string) => hex.padStart(64, '0');
const addressWord = (a: string) => word(TronWeb.address.toHex(a).slice(2));
const evm = (a: string) => `0x${TronWeb.address.toHex(a).slice(2)}`;
const rpc = async (body: unknown): Promise<any> => (await fetch(`${devnet.url}/jsonrpc`, { method: 'POST', body: JSON.stringify(body) })).json();

test('an eth_call batch answers each balanceOf in order, as triggerconstantcontract does', async () => {
  const usdt = devnet.accounts.usdt_contract;
  const holders = [devnet.accounts.customers[0].address, devnet.accounts.customers[1].address, TronWeb.address.fromHex('41' + 'ab'.repeat(20))];
  const batch = await rpc(holders.map((h, i) => ({ jsonrpc: '2.0', id: i + 7, method: 'eth_call', params: [{ to: evm(usdt), data: `0x70a08231${addressWord(h)}` }, 'latest'] })));
  const http = await Promise.all(holders.map(async (h) => devnet.post('/wallet/triggerconstantcontract', {
    owner_address: usdt, contract_address: usdt, function_selector: 'balanceOf(address)', parameter: addressWord(h), visible: true,
  })));
  expect(batch.map((a: any) => a.id)).toEqual([7, 8, 9]);
  expect(batch.map((a: any) => a.result)).toEqual(http.map((h: any) => `0x${h.constant_result[0]}`));
  // Funded customers hold USDT; the made-up address none.
  expect(batch.map((a: any) => BigInt(a.result) > 0n)).toEqual([true, true, false]);

  const client = new JsonRpc('/jsonrpc', devnet.url, 5_000);
  const answers = await client.ethCalls(holders.map((h) => ({ to: usdt, data: `0x70a08231${addressWord(h)}` })));
  expect(answers).toEqual(batch.map((a: any) => ({ ok: true, data: a.result })));
});

test('a revert, a tag other than latest, a missing contract and an unknown method answer JSON-RPC errors', async () => {
  const usdt = devnet.accounts.usdt_contract;
  const poor = TronWeb.address.fromHex('41' + 'cd'.repeat(20));
  const transfer = `0xa9059cbb${addressWord(devnet.accounts.customers[0].address)}${word((10n ** 12n).toString(16))}`;
  const [revert, tag, none, unknown] = await rpc([
    { jsonrpc: '2.0', id: 1, method: 'eth_call', params: [{ from: evm(poor), to: evm(usdt), data: transfer }, 'latest'] },
    { jsonrpc: '2.0', id: 2, method: 'eth_call', params: [{ to: evm(usdt), data: '0x70a08231' }, '0x10'] },
    { jsonrpc: '2.0', id: 3, method: 'eth_call', params: [{ to: evm(poor), data: '0x70a08231' }, 'latest'] },
    { jsonrpc: '2.0', id: 4, method: 'eth_sendTransaction', params: [] },
  ]);
  expect([revert.error.code, revert.error.message, typeof revert.error.data]).toEqual([-32000, 'REVERT opcode executed', 'string']);
  expect(tag.error.code).toBe(-32602);
  expect(none.error).toEqual({ code: -32000, message: 'Contract validate error : No contract or not a valid smart contract' });
  expect(unknown.error.code).toBe(-32601);
  // One call, not a batch: one answer object.
  expect(await rpc({ jsonrpc: '2.0', id: 5, method: 'eth_call', params: [{ to: evm(usdt), data: '0x70a08231' + word('0') }, 'latest'] })).toEqual({ jsonrpc: '2.0', id: 5, result: expect.stringMatching(/^0x/) });
});
