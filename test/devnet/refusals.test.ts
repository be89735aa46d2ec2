import { TronWeb, utils } from 'tronweb';
import { solidifiedInfo, startDevnet, type Devnet } from './start-devnet';

jest.setTimeout(60_000);

let devnet: Devnet;
let faucet: TronWeb;

beforeAll(async () => {
  devnet = await startDevnet();
  faucet = new TronWeb({ fullHost: devnet.url, privateKey: devnet.accounts.faucet.private_key });
});

afterAll(async () => {
  await devnet?.stop();
});

const text = (hex: string | undefined) => Buffer.from(hex ?? '', 'hex').toString('utf8');


describe('the devnet refuses what java-tron refuses', () => {
  it('a transaction signed by someone else than its owner', async () => {
    const intruder = devnet.accounts.customers[3];
    const tx = await faucet.transactionBuilder.sendTrx(intruder.address, 1_000_000, devnet.accounts.faucet.address);
    // trx.sign() refuses a key that does not own the transaction; the low-level signer does not.
    const signed = utils.crypto.signTransaction(intruder.private_key, tx);
    const answer: any = await faucet.trx.sendRawTransaction(signed);
    expect(answer.code).toBe('SIGERROR');
    expect(answer.txid).toBe(tx.txID);
    expect(text(answer.message)).toBe(`Validate signature error: ${signed.signature[0].toLowerCase()} is signed by ${intruder.address} but it is not contained of permission.`);
  });

  it('a transaction whose raw data changed after signing', async () => {
    const tx = await faucet.transactionBuilder.sendTrx(devnet.accounts.customers[3].address, 1_000_000, devnet.accounts.faucet.address);
    const signed: any = await faucet.trx.sign(tx);
    signed.raw_data.contract[0].parameter.value.amount = 2_000_000;
    const answer: any = await faucet.trx.sendRawTransaction(signed);
    expect(answer.code).toBe('SIGERROR');
    expect(answer.txid).not.toBe(tx.txID);
  });

  it('an expired transaction', async () => {
    const head: any = await faucet.trx.getCurrentBlock();
    const { number, timestamp } = head.block_header.raw_data;
    const blockHeader = {
      ref_block_bytes: number.toString(16).slice(-4).padStart(4, '0'),
      ref_block_hash: head.blockID.slice(16, 32),
      expiration: timestamp - 1_000,
      timestamp: timestamp - 61_000,
    };
    const tx = await faucet.transactionBuilder.sendTrx(devnet.accounts.customers[3].address, 1_000_000, devnet.accounts.faucet.address, { blockHeader });
    const answer: any = await faucet.trx.sendRawTransaction(await faucet.trx.sign(tx));
    expect(answer.code).toBe('TRANSACTION_EXPIRATION_ERROR');
    expect(text(answer.message)).toBe('Transaction expired');
  });

  it('a transaction referencing a block the chain does not have', async () => {
    const head: any = await faucet.trx.getCurrentBlock();
    const { number, timestamp } = head.block_header.raw_data;
    const blockHeader = { ref_block_bytes: number.toString(16).slice(-4).padStart(4, '0'), ref_block_hash: '0123456789abcdef', expiration: timestamp + 60_000, timestamp };
    const tx = await faucet.transactionBuilder.sendTrx(devnet.accounts.customers[3].address, 1_000_000, devnet.accounts.faucet.address, { blockHeader });
    const answer: any = await faucet.trx.sendRawTransaction(await faucet.trx.sign(tx));
    expect(answer.code).toBe('TAPOS_ERROR');
  });

  it('a duplicate, both while pending and once included', async () => {
    const tx = await faucet.transactionBuilder.sendTrx(devnet.accounts.customers[4].address, 1_000_000, devnet.accounts.faucet.address);
    const signed = await faucet.trx.sign(tx);
    expect(await faucet.trx.sendRawTransaction(signed)).toMatchObject({ result: true, txid: tx.txID });
    const again: any = await faucet.trx.sendRawTransaction(signed);
    expect(again.code).toBe('DUP_TRANSACTION_ERROR');
    await solidifiedInfo(faucet, tx.txID);
    expect(((await faucet.trx.sendRawTransaction(signed)) as any).code).toBe('DUP_TRANSACTION_ERROR');
  });

  it('a transfer larger than the balance', async () => {
    const poor = await faucet.createAccount();
    await solidifiedInfo(faucet, (await faucet.trx.sendTransaction(poor.address.base58, 2_000_000)).transaction.txID);
    const tw = new TronWeb({ fullHost: devnet.url, privateKey: poor.privateKey });
    const tx = await tw.transactionBuilder.sendTrx(devnet.accounts.faucet.address, 50_000_000, poor.address.base58);
    const answer: any = await tw.trx.sendRawTransaction(await tw.trx.sign(tx));
    expect(answer.code).toBe('CONTRACT_VALIDATE_ERROR');
    expect(text(answer.message)).toBe('Contract validate error : Validate TransferContract error, balance is not sufficient.');
    // java-tron's create endpoint refuses it the same way.
    const created: any = await devnet.post('/wallet/createtransaction', { owner_address: poor.address.hex, to_address: devnet.accounts.faucet.address, amount: 50_000_000, visible: false });
    expect(created.Error).toMatch(/balance is not sufficient/);
  });

  it('a USDT transfer beyond the token balance lands as REVERT with its fees', async () => {
    const customer = devnet.accounts.customers[2];
    const tw = new TronWeb({ fullHost: devnet.url, privateKey: customer.private_key });
    const usdt = await tw.contract().at(devnet.accounts.usdt_contract);
    const txid = await usdt.transfer(devnet.accounts.faucet.address, 10n ** 15n).send({ feeLimit: 10_000_000 });
    const info = await solidifiedInfo(tw, txid);
    expect(info.result).toBe('FAILED');
    expect(info.receipt.result).toBe('REVERT');
    expect(info.fee).toBeGreaterThan(0);
    expect(info.log).toBeUndefined();
  });

  it('undelegating before the lock ends', async () => {
    const pool = devnet.accounts.pool[1];
    const receiver = devnet.accounts.customers[0];
    const tw = new TronWeb({ fullHost: devnet.url, privateKey: pool.private_key });
    const delegate = await tw.transactionBuilder.delegateResource(10_000_000, receiver.address, 'ENERGY', pool.address, true, 600);
    expect(await tw.trx.sendRawTransaction(await tw.trx.sign(delegate))).toMatchObject({ result: true });
    await solidifiedInfo(tw, delegate.txID);

    const undelegate = await tw.transactionBuilder.undelegateResource(10_000_000, receiver.address, 'ENERGY', pool.address);
    const answer: any = await tw.trx.sendRawTransaction(await tw.trx.sign(undelegate));
    expect(answer.code).toBe('CONTRACT_VALIDATE_ERROR');
    expect(text(answer.message)).toBe('Contract validate error : insufficient delegateFrozenBalance(Energy), request=10000000, unlock_balance=0');
  });

  it('a lock shorter than what is left of the previous one', async () => {
    const pool = devnet.accounts.pool[2];
    const receiver = devnet.accounts.customers[1];
    const tw = new TronWeb({ fullHost: devnet.url, privateKey: pool.private_key });
    const first = await tw.transactionBuilder.delegateResource(10_000_000, receiver.address, 'ENERGY', pool.address, true, 1_000);
    expect(await tw.trx.sendRawTransaction(await tw.trx.sign(first))).toMatchObject({ result: true });
    await solidifiedInfo(tw, first.txID);
    const shorter = await tw.transactionBuilder.delegateResource(10_000_000, receiver.address, 'ENERGY', pool.address, true, 10);
    const answer: any = await tw.trx.sendRawTransaction(await tw.trx.sign(shorter));
    expect(answer.code).toBe('CONTRACT_VALIDATE_ERROR');
    expect(text(answer.message)).toMatch(/^Contract validate error : The lock period for ENERGY this time cannot be less than the remaining time\[\d+ms\]/);
  });

  it('an account that does not exist yet cannot send', async () => {
    const ghost = await faucet.createAccount();
    const tw = new TronWeb({ fullHost: devnet.url, privateKey: ghost.privateKey });
    const tx = await tw.transactionBuilder.sendTrx(devnet.accounts.faucet.address, 1_000, ghost.address.base58);
    const answer: any = await tw.trx.sendRawTransaction(await tw.trx.sign(tx));
    expect(answer.code).toBe('CONTRACT_VALIDATE_ERROR');
  });
});
