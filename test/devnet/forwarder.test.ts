/**
 * The batch-payout (forwarding) contract driven by an unmodified TronWeb: TRX forwarded by a value call and
 * USDT paid by the contract calling `transfer`, seen in the transaction info as java-tron reports them
 * (internal_transactions, log), by id and by block number, hex and visible; a failing payout keeps its
 * internal transactions marked rejected and drops every log and state change.
 */
import { TronWeb, utils } from 'tronweb';
import { eventually, solidifiedInfo, startDevnet, type Devnet } from './start-devnet';

jest.setTimeout(60_000);

const TRANSFER_TOPIC = 'ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const NOTE_CALL = Buffer.from('call').toString('hex');
const MULTI_SEND = 'multiSend(address,address[],uint256[],uint256[])';

let devnet: Devnet;
let faucet: TronWeb;
let customer: TronWeb;

beforeAll(async () => {
  devnet = await startDevnet();
  faucet = new TronWeb({ fullHost: devnet.url, privateKey: devnet.accounts.faucet.private_key });
  customer = new TronWeb({ fullHost: devnet.url, privateKey: devnet.accounts.customers[1].private_key });
});

afterAll(async () => {
  await devnet?.stop();
});

const hex = (base58: string) => TronWeb.address.toHex(base58).toLowerCase();
const topicOf = (base58: string) => hex(base58).slice(2).padStart(64, '0');

/** triggerSmartContract + sign + broadcast, as a wallet pays out through a contract. */
async function multiSend(recipients: string[], tokenAmounts: number[], trxAmounts: number[], callValue: number): Promise<string> {
  const built = await customer.transactionBuilder.triggerSmartContract(
    devnet.accounts.forwarder_contract, MULTI_SEND, { feeLimit: 200_000_000, callValue },
    [
      { type: 'address', value: devnet.accounts.usdt_contract },
      { type: 'address[]', value: recipients },
      { type: 'uint256[]', value: tokenAmounts },
      { type: 'uint256[]', value: trxAmounts },
    ],
    devnet.accounts.customers[1].address,
  );
  expect(built.result.result).toBe(true);
  const sent = await customer.trx.sendRawTransaction(await customer.trx.sign(built.transaction));
  expect(sent.result).toBe(true);
  return built.transaction.txID;
}

/** InternalTransaction.getHash as java-tron computes it for a child call. */
function internalHash(parent: string, to: string, data: Buffer, value: bigint, nonce: number): string {
  const long = (n: bigint) => { const b = Buffer.alloc(8); b.writeBigInt64BE(n); return b; };
  const bytes = Buffer.concat([Buffer.from(parent, 'hex'), Buffer.from(hex(to), 'hex'), data, long(value), long(BigInt(nonce))]);
  return utils.ethersUtils.keccak256(bytes).slice(2);
}

const usdtBalance = async (who: string) => BigInt((await (await faucet.contract().at(devnet.accounts.usdt_contract)).balanceOf(who).call()).toString());

describe('the forwarding contract', () => {
  it('forwards TRX and pays USDT for its caller, reported as internal transactions and Transfer logs', async () => {
    const forwarder = devnet.accounts.forwarder_contract;
    const usdt = await faucet.contract().at(devnet.accounts.usdt_contract);
    const abi: any = await faucet.trx.getContract(forwarder);
    expect(abi.abi.entrys.find((e: any) => e.name === 'multiSend')).toMatchObject({ payable: true, stateMutability: 'Payable' });
    // The payout contract holds the USDT it pays out (funded directly, as a hot wallet is).
    await usdt.transfer(forwarder, 50_000_000).send({ feeLimit: 100_000_000 });
    const a = (await faucet.createAccount()).address.base58;
    const b = (await faucet.createAccount()).address.base58;
    const forwarderUsdt = await eventually(async () => (await usdtBalance(forwarder)) === 50_000_000n);
    expect(forwarderUsdt).toBe(true);
    const callerTrxBefore = BigInt(await customer.trx.getUnconfirmedBalance(devnet.accounts.customers[1].address));

    // a: 7 USDT, b: 3 TRX, a again: 2 USDT and 1 TRX. 4 TRX sent with the call pay the TRX lines.
    const txid = await multiSend([a, b, a], [7_000_000, 0, 2_000_000], [0, 3_000_000, 1_000_000], 4_000_000);
    const info = await solidifiedInfo(faucet, txid);

    expect(info.receipt.result).toBe('SUCCESS');
    expect(info.result).toBeUndefined();
    expect(info.contract_address).toBe(hex(forwarder));
    // Logs: the token's Transfer events, from the payout contract, in execution order; 20-byte addresses.
    expect(info.log).toEqual([
      { address: hex(devnet.accounts.usdt_contract).slice(2), topics: [TRANSFER_TOPIC, topicOf(forwarder), topicOf(a)], data: (7_000_000).toString(16).padStart(64, '0') },
      { address: hex(devnet.accounts.usdt_contract).slice(2), topics: [TRANSFER_TOPIC, topicOf(forwarder), topicOf(a)], data: (2_000_000).toString(16).padStart(64, '0') },
    ]);
    // Internal transactions: one per message call, numbered by the nonce, parented by the txid.
    // transfer(address,uint256): selector, then the two 32-byte words.
    const transferData = (to: string, amount: number) => Buffer.from('a9059cbb' + topicOf(to) + amount.toString(16).padStart(64, '0'), 'hex');
    const calls = [
      { to: devnet.accounts.usdt_contract, data: transferData(a, 7_000_000), value: 0n },
      { to: b, data: Buffer.alloc(0), value: 3_000_000n },
      { to: devnet.accounts.usdt_contract, data: transferData(a, 2_000_000), value: 0n },
      { to: a, data: Buffer.alloc(0), value: 1_000_000n },
    ];
    expect(info.internal_transactions).toEqual(calls.map((c, i) => ({
      hash: internalHash(txid, c.to, c.data, c.value, i + 1),
      caller_address: hex(forwarder),
      transferTo_address: hex(c.to),
      callValueInfo: [c.value > 0n ? { callValue: Number(c.value) } : {}],
      note: NOTE_CALL,
    })));

    // The chain state moved as reported.
    expect(await faucet.trx.getBalance(b)).toBe(3_000_000);
    expect(await faucet.trx.getBalance(a)).toBe(1_000_000);
    expect(await usdtBalance(a)).toBe(9_000_000n);
    expect(await usdtBalance(forwarder)).toBe(41_000_000n);
    const callerTrxAfter = BigInt(await customer.trx.getBalance(devnet.accounts.customers[1].address));
    expect(callerTrxBefore - callerTrxAfter).toBe(4_000_000n + BigInt(info.fee ?? 0));

    // By block number: the same infos, in block order, on the full and the solidity node.
    for (const prefix of ['wallet', 'walletsolidity']) {
      const all = await devnet.post(`/${prefix}/gettransactioninfobyblocknum`, { num: info.blockNumber });
      expect(Array.isArray(all)).toBe(true);
      expect(all.find((i: any) => i.id === txid)).toEqual(info);
    }
    // visible: addresses in base58, log addresses prefixed first; topics, data, hashes, note stay hex.
    const visible = await devnet.post('/walletsolidity/gettransactioninfobyid', { value: txid, visible: true });
    expect(visible.log[0].address).toBe(devnet.accounts.usdt_contract);
    expect(visible.log[0].topics).toEqual(info.log[0].topics);
    expect(visible.contract_address).toBe(forwarder);
    expect(visible.internal_transactions[1]).toEqual({ ...info.internal_transactions[1], caller_address: forwarder, transferTo_address: b });
    // A block the solidity node does not have yet answers an empty list; num 0 answers {}.
    expect(await devnet.post('/walletsolidity/gettransactioninfobyblocknum', { num: 1_000_000 })).toEqual([]);
    expect(await devnet.post('/wallet/gettransactioninfobyblocknum', { num: 0 })).toEqual({});
  });

  it('a payout that fails reverts whole: no logs, internal transactions rejected, balances and call value untouched', async () => {
    const forwarder = devnet.accounts.forwarder_contract;
    const c = (await faucet.createAccount()).address.base58;
    const held = await usdtBalance(forwarder);
    // 1 TRX to c first, then more USDT than the contract holds: the token call reverts, so does the payout.
    const txid = await multiSend([c, c], [0, Number(held) + 1], [1_000_000, 0], 1_000_000);
    const info = await solidifiedInfo(faucet, txid);
    expect(info.receipt.result).toBe('REVERT');
    expect(info.result).toBe('FAILED');
    expect(info.log).toBeUndefined();
    expect(info.internal_transactions).toHaveLength(2);
    expect(info.internal_transactions.map((it: any) => it.rejected)).toEqual([true, true]);
    expect(info.internal_transactions[0].callValueInfo).toEqual([{ callValue: 1_000_000 }]);
    expect(Buffer.from(info.resMessage, 'hex').toString('utf8')).toBe('REVERT opcode executed');
    // With visible, resMessage is printed as text (a JsonFormat name field) and addresses in base58.
    const visible = await devnet.post('/walletsolidity/gettransactioninfobyid', { value: txid, visible: true });
    expect(visible.resMessage).toBe('REVERT opcode executed');
    expect(visible.internal_transactions[0]).toMatchObject({ transferTo_address: c, rejected: true });
    const account: any = await faucet.trx.getAccount(c);
    expect(account.balance ?? 0).toBe(0);
    expect(await usdtBalance(forwarder)).toBe(held);
  });

  it('TRX sent to a function that is not payable reverts before anything runs', async () => {
    const built = await customer.transactionBuilder.triggerSmartContract(
      devnet.accounts.usdt_contract, 'transfer(address,uint256)', { feeLimit: 100_000_000, callValue: 5 },
      [{ type: 'address', value: devnet.accounts.customers[0].address }, { type: 'uint256', value: 1 }], devnet.accounts.customers[1].address,
    );
    await customer.trx.sendRawTransaction(await customer.trx.sign(built.transaction));
    const info = await solidifiedInfo(faucet, built.transaction.txID);
    expect(info.receipt.result).toBe('REVERT');
    expect(info.internal_transactions).toBeUndefined();
  });
});
