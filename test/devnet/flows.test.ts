import { TronWeb } from 'tronweb';
import { solidifiedInfo, startDevnetWithFaucetClient, type Devnet } from './start-devnet';

jest.setTimeout(60_000);

let devnet: Devnet;
let tronWeb: TronWeb;

beforeAll(async () => ({ devnet, tronWeb } = await startDevnetWithFaucetClient()));
afterAll(() => devnet?.stop());


describe('a new wallet driven with TronWeb', () => {
  it('is funded, receives USDT, gets energy delegated and sees its energy limit rise', async () => {
    const fresh = await tronWeb.createAccount();
    const pool = devnet.accounts.pool[0];
    const asPool = new TronWeb({ fullHost: devnet.url, privateKey: pool.private_key });

    // Activation by a TRX transfer: the sender pays the creation fee on top.
    const faucetBefore = Number(await tronWeb.trx.getUnconfirmedBalance(devnet.accounts.faucet.address));
    const send = await tronWeb.trx.sendTransaction(fresh.address.base58, 5_000_000);
    expect(send.result).toBe(true);
    const sendInfo = await solidifiedInfo(tronWeb, send.transaction.txID);
    expect(sendInfo.fee).toBe(1_000_000);
    expect(await tronWeb.trx.getBalance(fresh.address.base58)).toBe(5_000_000);
    const faucetAfter = Number(await tronWeb.trx.getBalance(devnet.accounts.faucet.address));
    expect(faucetBefore - faucetAfter).toBe(5_000_000 + 1_000_000);

    // USDT through the contract's own ABI, as any dApp would.
    const usdt = await tronWeb.contract().at(devnet.accounts.usdt_contract);
    expect(await usdt.symbol().call()).toBe('USDT');
    expect(Number(await usdt.decimals().call())).toBe(6);
    const usdtTxid = await usdt.transfer(fresh.address.base58, 25_000_000).send({ feeLimit: 100_000_000 });
    const usdtInfo = await solidifiedInfo(tronWeb, usdtTxid);
    expect(usdtInfo.receipt.result).toBe('SUCCESS');
    expect(usdtInfo.receipt.energy_usage_total).toBe(29_650);
    expect(usdtInfo.log[0].topics[0]).toBe('ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef');
    expect(usdtInfo.log[0].topics[2]).toBe(fresh.address.hex.slice(2).toLowerCase().padStart(64, '0'));
    expect(BigInt('0x' + usdtInfo.log[0].data)).toBe(25_000_000n);
    expect((await usdt.balanceOf(fresh.address.base58).call()).toString()).toBe('25000000');

    // Delegate energy from a pool account, locked, and read the receiver's raised limit.
    const before: any = await tronWeb.trx.getAccountResources(fresh.address.base58);
    expect(before.EnergyLimit ?? 0).toBe(0);
    const delegation = await asPool.transactionBuilder.delegateResource(1_000_000_000, fresh.address.base58, 'ENERGY', pool.address, true, 1000);
    const delegated = await asPool.trx.sendRawTransaction(await asPool.trx.sign(delegation));
    expect(delegated.result).toBe(true);
    await solidifiedInfo(tronWeb, delegation.txID);
    const after: any = await tronWeb.trx.getAccountResources(fresh.address.base58);
    const expected = Math.floor(1000 * (after.TotalEnergyLimit / after.TotalEnergyWeight));
    expect(after.EnergyLimit).toBe(expected);
    expect(after.EnergyLimit).toBeGreaterThan(14_650);

    const records: any = await tronWeb.trx.getDelegatedResourceV2(pool.address, fresh.address.base58);
    expect(records.delegatedResource[0].frozen_balance_for_energy).toBe(1_000_000_000);
    expect(records.delegatedResource[0].expire_time_for_energy).toBeGreaterThan(Date.now() + 2_900_000);
    const index: any = await tronWeb.trx.getDelegatedResourceAccountIndexV2(pool.address);
    expect(index.toAccounts).toContain(tronWeb.address.toHex(fresh.address.base58).toLowerCase());

    // The receiver's own USDT transfer now runs on the delegated energy, burning no TRX for it.
    const asFresh = new TronWeb({ fullHost: devnet.url, privateKey: fresh.privateKey });
    const usdtAsFresh = await asFresh.contract().at(devnet.accounts.usdt_contract);
    const back = await usdtAsFresh.transfer(devnet.accounts.faucet.address, 1_000_000).send({ feeLimit: 50_000_000 });
    const backInfo = await solidifiedInfo(tronWeb, back);
    expect(backInfo.receipt.energy_usage).toBe(14_650);
    expect(backInfo.receipt.energy_fee ?? 0).toBe(0);
    const used: any = await tronWeb.trx.getAccountResources(fresh.address.base58);
    // Used energy recovers linearly over 24 h, so a few seconds after the block it may read a unit or two less.
    expect(used.EnergyUsed).toBeLessThanOrEqual(14_650);
    expect(used.EnergyUsed).toBeGreaterThan(14_600);
  });

  it('freezes, delegates without lock, undelegates and unfreezes', async () => {
    const customer = devnet.accounts.customers[0];
    const receiver = devnet.accounts.customers[1];
    const tw = new TronWeb({ fullHost: devnet.url, privateKey: customer.private_key });
    const send = async (tx: any) => {
      const answer = await tw.trx.sendRawTransaction(await tw.trx.sign(tx));
      expect(answer).toMatchObject({ result: true });
      return solidifiedInfo(tronWeb, tx.txID);
    };
    const weightBefore: any = await tw.trx.getAccountResources(customer.address);
    await send(await tw.transactionBuilder.freezeBalanceV2(2_000_000_000, 'ENERGY', customer.address));
    await send(await tw.transactionBuilder.freezeBalanceV2(1_000_000_000, 'BANDWIDTH', customer.address));
    const staked: any = await tw.trx.getAccountResources(customer.address);
    expect(staked.TotalEnergyWeight - weightBefore.TotalEnergyWeight).toBe(2000);
    expect(staked.EnergyLimit).toBe(Math.floor(2000 * (staked.TotalEnergyLimit / staked.TotalEnergyWeight)));
    expect(staked.NetLimit).toBe(Math.floor(1000 * (staked.TotalNetLimit / staked.TotalNetWeight)));

    const max: any = await tw.trx.getCanDelegatedMaxSize(customer.address, 'ENERGY');
    expect(max.max_size).toBe(2_000_000_000);
    await send(await tw.transactionBuilder.delegateResource(500_000_000, receiver.address, 'ENERGY', customer.address));
    expect(((await tw.trx.getCanDelegatedMaxSize(customer.address, 'ENERGY')) as any).max_size).toBe(1_500_000_000);
    const account: any = await tw.trx.getAccount(customer.address);
    expect(account.account_resource.delegated_frozenV2_balance_for_energy).toBe(500_000_000);

    await send(await tw.transactionBuilder.undelegateResource(500_000_000, receiver.address, 'ENERGY', customer.address));
    const unfreeze = await send(await tw.transactionBuilder.unfreezeBalanceV2(1_000_000_000, 'ENERGY', customer.address));
    expect(unfreeze.unfreeze_amount).toBe(1_000_000_000);
    const later: any = await tw.trx.getAccount(customer.address);
    expect(later.unfrozenV2[0]).toMatchObject({ type: 'ENERGY', unfreeze_amount: 1_000_000_000 });
    expect(later.frozenV2.find((f: any) => f.type === 'ENERGY').amount).toBe(1_000_000_000);
  });

  it('serves blocks, transactions and chain parameters the way TronWeb reads them', async () => {
    const head: any = await tronWeb.trx.getCurrentBlock();
    expect(head.blockID.slice(0, 16)).toBe(head.block_header.raw_data.number.toString(16).padStart(16, '0'));
    const range = await tronWeb.trx.getBlockRange(1, 3);
    expect(range.map((b: any) => b.block_header.raw_data.number)).toEqual([1, 2, 3]);
    expect(range[1].block_header.raw_data.parentHash).toBe(range[0].blockID);

    const sent = await tronWeb.trx.sendTransaction(devnet.accounts.customers[2].address, 1_000);
    const info = await solidifiedInfo(tronWeb, sent.transaction.txID);
    const block: any = await tronWeb.trx.getBlock(info.blockNumber);
    expect(block.transactions.map((t: any) => t.txID)).toContain(sent.transaction.txID);
    const tx: any = await tronWeb.trx.getTransaction(sent.transaction.txID);
    expect(tx.raw_data_hex).toBe(sent.transaction.raw_data_hex);
    expect(tx.ret[0].contractRet).toBe('SUCCESS');

    const params = await tronWeb.trx.getChainParameters();
    const byKey = Object.fromEntries(params.map((p: any) => [p.key, p.value]));
    expect(byKey.getCreateNewAccountFeeInSystemContract).toBe(1_000_000);
    expect(byKey.getTotalEnergyLimit).toBeGreaterThan(0);
  });
});
