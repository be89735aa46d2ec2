import { TronWeb } from 'tronweb';
import { eventually, startDevnetWithFaucetClient, type Devnet } from './start-devnet';

jest.setTimeout(90_000);

let devnet: Devnet;
let tronWeb: TronWeb;

beforeAll(async () => ({ devnet, tronWeb } = await startDevnetWithFaucetClient()));
afterAll(() => devnet?.stop());

/** assetV2 balance as TronWeb reads it (getAccount asks the solidity node), once it reaches `expected`. */
const assetV2 = async (address: string, id: string, expected?: number): Promise<number> => {
  let last = -1;
  try {
    await eventually(async () => {
      const account: any = await tronWeb.trx.getAccount(address);
      last = Number((account.assetV2 ?? []).find((e: any) => e.key === id)?.value ?? 0);
      return expected === undefined || last === expected;
    }, 5_000);
  } catch {
    // the caller's expectation reports the value seen last
  }
  return last;
};

describe('TRC-10 promo token (AssetIssueContract, TransferAssetContract)', () => {
  it('issues a token from a drop address and drops it to each holder, visible as assetV2 and by id', async () => {
    const [a, b] = devnet.accounts.customers;
    const drop = await devnet.post('/admin/promo-token', { name: 'PROMO', holders: [a.address, b.address], amount: 7 });
    expect(drop.token_id).toBe('1000001');
    expect(TronWeb.isAddress(drop.drop_address)).toBe(true);
    expect(drop.txids).toHaveLength(4);

    const token: any = await tronWeb.trx.getTokenByID(drop.token_id);
    expect(token).toMatchObject({ id: '1000001', name: 'PROMO', total_supply: 14, owner_address: TronWeb.address.toHex(drop.drop_address) });
    expect(await assetV2(a.address, drop.token_id, 7)).toBe(7);
    expect(await assetV2(b.address, drop.token_id, 7)).toBe(7);
    expect(await assetV2(drop.drop_address, drop.token_id, 0)).toBe(0);
    const dropAccount: any = await tronWeb.trx.getAccount(drop.drop_address);
    expect(Buffer.from(dropAccount.asset_issued_ID, 'hex').toString()).toBe('1000001');

    // Every drop transaction lands in a block and its info names the issued id.
    const infos = await eventually(async () => {
      const all = await Promise.all(drop.txids.map((t: string) => tronWeb.trx.getUnconfirmedTransactionInfo(t)));
      return all.every((i: any) => i.blockNumber) ? all : undefined;
    });
    expect((infos[1] as any).assetIssueID).toBe('1000001');
    const transfer: any = await tronWeb.trx.getTransaction(drop.txids[2]);
    expect(transfer.raw_data.contract[0].type).toBe('TransferAssetContract');
    expect(Buffer.from(transfer.raw_data.contract[0].parameter.value.asset_name, 'hex').toString()).toBe('1000001');

    // A second token gets the next id.
    const second = await devnet.post('/admin/promo-token', { name: 'PROMO2', holders: [a.address], amount: 1 });
    expect(second.token_id).toBe('1000002');
  });

  it('moves the token with an unmodified TronWeb sendToken, and refuses what java-tron refuses', async () => {
    const [, , c] = devnet.accounts.customers;
    const drop = await devnet.post('/admin/promo-token', { name: 'SEND', holders: [c.address], amount: 10 });
    const fresh = await tronWeb.createAccount();
    const sender = new TronWeb({ fullHost: devnet.url, privateKey: c.private_key });

    const sent: any = await sender.trx.sendToken(fresh.address.base58, 4, drop.token_id);
    expect(sent.result).toBe(true);
    expect(await assetV2(c.address, drop.token_id, 6)).toBe(6);
    expect(await assetV2(fresh.address.base58, drop.token_id, 4)).toBe(4);

    const tooMuch: any = await sender.trx.sendToken(fresh.address.base58, 7, drop.token_id);
    expect(tooMuch.code).toBe('CONTRACT_VALIDATE_ERROR');
    expect(Buffer.from(tooMuch.message, 'hex').toString()).toContain('assetBalance is not sufficient.');
    const unknown: any = await sender.trx.sendToken(fresh.address.base58, 1, '1999999');
    expect(Buffer.from(unknown.message, 'hex').toString()).toContain('No asset!');
    expect(await assetV2(c.address, drop.token_id, 6)).toBe(6);

    // The create endpoint java-tron serves for it builds the same contract.
    const built: any = await fetch(devnet.url + '/wallet/transferasset', {
      method: 'POST',
      body: JSON.stringify({ owner_address: c.address, to_address: fresh.address.base58, asset_name: drop.token_id, amount: 1, visible: true }),
    }).then((r) => r.json());
    expect(built.raw_data.contract[0].parameter.value).toMatchObject({ amount: 1, to_address: fresh.address.base58 });
  });

  it('answers 400 on a bad admin body', async () => {
    const res = await fetch(devnet.url + '/admin/promo-token', { method: 'POST', body: JSON.stringify({ name: 'X', holders: ['nope'], amount: 1 }) });
    expect(res.status).toBe(400);
  });
});
