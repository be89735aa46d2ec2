/**
 * What an energy estimate depends on, as java-tron reports it: a contract's dynamic energy factor
 * (getcontractinfo contract_state.energy_factor) and its penalty (triggerconstantcontract energy_used with
 * the penalty in it and energy_penalty its part; receipt.energy_penalty_total), new versus existing holder,
 * a revert with its Error(string) reason, the fees of getchainparameters, and the energy a broadcast
 * transfer actually consumes (delegated first, the rest burned).
 */
import { TronWeb } from 'tronweb';
import { revertReason } from '../../services/chain/revert-reason';
import { solidifiedInfo, startDevnetWithFaucetClient, type Devnet } from './start-devnet';

jest.setTimeout(60_000);

let devnet: Devnet;
let tronWeb: TronWeb;

beforeAll(async () => ({ devnet, tronWeb } = await startDevnetWithFaucetClient()));
afterAll(() => devnet?.stop());

const word = (hex: string) => hex.padStart(64, '0');
const transferParameter = (to: string, amount: bigint) => word(TronWeb.address.toHex(to).slice(2)) + word(amount.toString(16));

async function simulate(from: string, to: string, amount: bigint): Promise<any> {
  const res = await fetch(`${devnet.url}/wallet/triggerconstantcontract`, {
    method: 'POST',
    body: JSON.stringify({
      owner_address: from, contract_address: devnet.accounts.usdt_contract, function_selector: 'transfer(address,uint256)',
      parameter: transferParameter(to, amount), visible: true,
    }),
  });
  return res.json();
}

async function setFactor(factor: number): Promise<void> {
  const answer = await devnet.post('/admin/energy-factor', { contract: devnet.accounts.usdt_contract, energy_factor: factor });
  expect(answer).toMatchObject({ ok: true, energy_factor: factor });
}

test('chain parameters carry the energy and bandwidth fees and dynamic energy on', async () => {
  const params: any = await (await fetch(`${devnet.url}/wallet/getchainparameters`)).json();
  const value = (key: string) => params.chainParameter.find((p: any) => p.key === key)?.value;
  expect(value('getEnergyFee')).toBe(100);
  expect(value('getTransactionFee')).toBe(1000);
  expect(value('getAllowDynamicEnergy')).toBe(1);
});

test('the factor raises a simulated and a sent transfer by the penalty, new and existing holder apart', async () => {
  const sender = devnet.accounts.customers[0].address;
  const holder = devnet.accounts.customers[1].address;
  const fresh = (await tronWeb.createAccount()).address.base58;

  // No factor: the base costs, no energy_penalty field (java-tron leaves a zero out), no contract_state.
  const plain = await simulate(sender, fresh, 1_000_000n);
  expect([plain.energy_used, plain.energy_penalty]).toEqual([29_650, undefined]);
  const info0: any = await (await fetch(`${devnet.url}/wallet/getcontractinfo`, { method: 'POST', body: JSON.stringify({ value: devnet.accounts.usdt_contract, visible: true }) })).json();
  expect(info0.contract_state).toEqual({});
  expect(info0.smart_contract.contract_address).toBe(devnet.accounts.usdt_contract);

  await setFactor(34_000);
  const info: any = await (await fetch(`${devnet.url}/wallet/getcontractinfo`, { method: 'POST', body: JSON.stringify({ value: devnet.accounts.usdt_contract, visible: true }) })).json();
  expect(info.contract_state.energy_factor).toBe(34_000);

  const toNew = await simulate(sender, fresh, 1_000_000n);
  expect(toNew.energy_used).toBe(29_650 + 100_810);
  expect(toNew.energy_penalty).toBe(100_810);
  const toHolder = await simulate(sender, holder, 1_000_000n);
  expect([toHolder.energy_used, toHolder.energy_penalty]).toEqual([14_650 + 49_810, 49_810]);

  // Sent from a sender with no energy: every unit burned at getEnergyFee, the receipt naming the penalty.
  const usdt = await new TronWeb({ fullHost: devnet.url, privateKey: devnet.accounts.customers[0].private_key }).contract().at(devnet.accounts.usdt_contract);
  const txid = await usdt.transfer(fresh, 1_000_000).send({ feeLimit: 20_000_000 });
  const sent = await solidifiedInfo(tronWeb, txid);
  expect(sent.receipt).toMatchObject({ result: 'SUCCESS', energy_usage_total: 130_460, energy_penalty_total: 100_810, energy_fee: 13_046_000 });

  await setFactor(0);
});

test('a transfer above the balance reverts with its reason, in the simulation and on chain', async () => {
  const poor = devnet.accounts.pool[0];
  const answer = await simulate(poor.address, devnet.accounts.customers[0].address, 5n);
  expect(answer.transaction.ret).toEqual([{ ret: 'FAILED' }]);
  expect(Buffer.from(answer.result.message, 'hex').toString()).toBe('REVERT opcode executed');
  const data = answer.constant_result[0] as string;
  expect(data.slice(0, 8)).toBe('08c379a0');
  expect(revertReason(data)).toBe('ERC20: transfer amount exceeds balance');

  const usdt = await new TronWeb({ fullHost: devnet.url, privateKey: poor.private_key }).contract().at(devnet.accounts.usdt_contract);
  const txid = await usdt.transfer(devnet.accounts.customers[0].address, 5).send({ feeLimit: 10_000_000 });
  const info = await solidifiedInfo(tronWeb, txid);
  expect(info.receipt.result).toBe('REVERT');
  expect(info.contractResult[0].slice(0, 8)).toBe('08c379a0');
});

test('simulations on the fast path answer as express does (trailing slash), POST only', async () => {
  const body = JSON.stringify({
    owner_address: devnet.accounts.customers[0].address, contract_address: devnet.accounts.usdt_contract, function_selector: 'transfer(address,uint256)',
    parameter: transferParameter(devnet.accounts.customers[1].address, 7n), visible: true,
  });
  const answer = async (path: string) => {
    const res = await fetch(devnet.url + path, { method: 'POST', body });
    const json: any = await res.json();
    // The built transaction carries the time of the call (raw_data.timestamp), so its id differs per call.
    delete json.transaction.txID;
    delete json.transaction.raw_data.timestamp;
    delete json.transaction.raw_data_hex;
    return { status: res.status, type: res.headers.get('content-type'), json };
  };
  for (const path of ['/wallet/triggerconstantcontract', '/walletsolidity/triggerconstantcontract']) {
    const fast = await answer(path);
    expect(fast.json.energy_used).toBe(14_650);
    expect(await answer(path + '/')).toEqual(fast);
  }
  const estimated: any = await (await fetch(devnet.url + '/wallet/estimateenergy', { method: 'POST', body })).json();
  expect(estimated).toEqual({ result: { result: true }, energy_required: 14_650 });
  expect((await fetch(devnet.url + '/wallet/triggerconstantcontract')).status).toBe(404);
});
