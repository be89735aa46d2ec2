import { TronWeb } from 'tronweb';
import { sleep, solidifiedInfo, startDevnet, startDevnetWithFaucetClient, type Devnet } from './start-devnet';

jest.setTimeout(90_000);

let devnet: Devnet;
let tronWeb: TronWeb;

beforeAll(async () => ({ devnet, tronWeb } = await startDevnetWithFaucetClient()));
afterAll(() => devnet?.stop());


async function signedTransfer(amount: number): Promise<any> {
  const tx = await tronWeb.transactionBuilder.sendTrx(devnet.accounts.customers[0].address, amount, devnet.accounts.faucet.address);
  return tronWeb.trx.sign(tx);
}

describe('admin API', () => {
  it('lists the genesis wallets with keys that own them', async () => {
    const res = await fetch(devnet.url + '/admin/accounts');
    const accounts: any = await res.json();
    expect(Object.keys(accounts).sort()).toEqual(['customers', 'dex_pool', 'faucet', 'forwarder_contract', 'pool', 'usdt_contract']);
    expect(accounts.customers).toHaveLength(5);
    expect(accounts.pool).toHaveLength(3);
    for (const w of [accounts.faucet, ...accounts.customers, ...accounts.pool]) {
      expect(Object.keys(w).sort()).toEqual(['address', 'private_key']);
      expect(TronWeb.address.fromPrivateKey(w.private_key)).toBe(w.address);
    }
    const pool: any = await tronWeb.trx.getAccountResources(accounts.pool[0].address);
    expect(pool.EnergyLimit).toBeGreaterThan(10_000_000);
  });

  it('funds an address with TRX and USDT from the faucet', async () => {
    const fresh = await tronWeb.createAccount();
    const answer = await devnet.post('/admin/faucet', { to: fresh.address.base58, trx_sun: '3000000', usdt: 7_500_000 });
    expect(answer.txids).toHaveLength(2);
    await Promise.all(answer.txids.map((txid: string) => solidifiedInfo(tronWeb, txid)));
    expect(await tronWeb.trx.getBalance(fresh.address.base58)).toBe(3_000_000);
    const usdt = await tronWeb.contract().at(devnet.accounts.usdt_contract);
    expect((await usdt.balanceOf(fresh.address.base58).call()).toString()).toBe('7500000');
    expect((await devnet.post('/admin/faucet', { to: 'nope', trx_sun: 1 })).error).toBeDefined();
  });

  it('produces blocks on demand', async () => {
    const before: any = await tronWeb.trx.getCurrentBlock();
    const { head } = await devnet.post('/admin/blocks', { count: 5 });
    expect(head).toBeGreaterThanOrEqual(before.block_header.raw_data.number + 5);
  });

  it('sets the DEX pool price that slot0() reports', async () => {
    expect(await devnet.post('/admin/price', { trx_per_usdt: '4.25' })).toEqual({ ok: true });
    const pool = await tronWeb.contract().at(devnet.accounts.dex_pool);
    const { sqrtPriceX96 } = await pool.slot0().call();
    const token0 = TronWeb.address.fromHex('41' + String(await pool.token0().call()).slice(2));
    const raw = (Number(BigInt(sqrtPriceX96.toString())) / 2 ** 96) ** 2;
    const trxPerUsdt = token0 === devnet.accounts.usdt_contract ? raw : 1 / raw;
    expect(trxPerUsdt).toBeCloseTo(4.25, 9);
  });

  it('drops a broadcast it answered as accepted (drop_next_broadcasts)', async () => {
    await devnet.post('/admin/faults', { drop_next_broadcasts: 1 });
    const signed = await signedTransfer(1_001);
    expect(await tronWeb.trx.sendRawTransaction(signed)).toMatchObject({ result: true });
    await devnet.post('/admin/blocks', { count: 3 });
    expect(await tronWeb.trx.getUnconfirmedTransactionInfo(signed.txID)).toEqual({});
    expect(await (await fetch(`${devnet.url}/wallet/gettransactionbyid?value=${signed.txID}`)).json()).toEqual({});
    // The node forgot it: broadcasting again works.
    expect(await tronWeb.trx.sendRawTransaction(signed)).toMatchObject({ result: true });
    await solidifiedInfo(tronWeb, signed.txID);
  });

  it('includes a broadcast only K blocks later (delay_next_broadcasts)', async () => {
    await devnet.post('/admin/faults', { delay_next_broadcasts: 1, delay_blocks: 4 });
    const head: any = await tronWeb.trx.getCurrentBlock();
    const signed = await signedTransfer(1_002);
    expect(await tronWeb.trx.sendRawTransaction(signed)).toMatchObject({ result: true });
    expect(((await tronWeb.trx.sendRawTransaction(signed)) as any).code).toBe('DUP_TRANSACTION_ERROR');
    const info = await solidifiedInfo(tronWeb, signed.txID);
    expect(info.blockNumber).toBeGreaterThanOrEqual(head.block_header.raw_data.number + 4);
  });

  it('never includes a listed transaction (never_land)', async () => {
    const signed = await signedTransfer(1_003);
    await devnet.post('/admin/faults', { never_land: [signed.txID] });
    expect(await tronWeb.trx.sendRawTransaction(signed)).toMatchObject({ result: true });
    await devnet.post('/admin/blocks', { count: 3 });
    expect(await tronWeb.trx.getUnconfirmedTransactionInfo(signed.txID)).toEqual({});
    expect(((await tronWeb.trx.sendRawTransaction(signed)) as any).code).toBe('DUP_TRANSACTION_ERROR');
  });

  it('fails every read for a while (fail_reads_ms), broadcasts still answered', async () => {
    const signed = await signedTransfer(1_004);
    await devnet.post('/admin/faults', { fail_reads_ms: 600 });
    expect((await fetch(devnet.url + '/wallet/getnowblock')).status).toBe(503);
    expect((await fetch(devnet.url + '/walletsolidity/getaccount', { method: 'POST', body: '{}' })).status).toBe(503);
    const broadcast = await fetch(devnet.url + '/wallet/broadcasttransaction', { method: 'POST', body: JSON.stringify(signed) });
    expect(await broadcast.json()).toMatchObject({ result: true });
    await sleep(700);
    expect((await fetch(devnet.url + '/wallet/getnowblock')).status).toBe(200);
    expect((await devnet.post('/admin/faults', { clear: true })).faults.drop_next_broadcasts).toBe(0);
  });

  it('continues the same chain after a restart, and starts over on reset', async () => {
    const fresh = await tronWeb.createAccount();
    await solidifiedInfo(tronWeb, (await tronWeb.trx.sendTransaction(fresh.address.base58, 4_000_000)).transaction.txID);
    const before: any = await tronWeb.trx.getCurrentBlock();
    await devnet.stop();

    devnet = await startDevnet({}, devnet.dataDir);
    tronWeb = new TronWeb({ fullHost: devnet.url, privateKey: devnet.accounts.faucet.private_key });
    const after: any = await tronWeb.trx.getCurrentBlock();
    expect(after.block_header.raw_data.number).toBeGreaterThanOrEqual(before.block_header.raw_data.number);
    const same: any = await tronWeb.trx.getBlock(before.block_header.raw_data.number);
    expect(same.blockID).toBe(before.blockID);
    expect(await tronWeb.trx.getUnconfirmedBalance(fresh.address.base58)).toBe(4_000_000);

    const reset = await devnet.post('/admin/reset');
    expect(reset.ok).toBe(true);
    expect(reset.head).toBeLessThan(before.block_header.raw_data.number);
    expect(await tronWeb.trx.getUnconfirmedAccount(fresh.address.base58)).toEqual({});
  });
});
