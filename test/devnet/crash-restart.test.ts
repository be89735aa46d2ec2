import fs from 'node:fs';
import path from 'node:path';
import { TronWeb } from 'tronweb';
import { solidifiedInfo, startDevnet, type Devnet } from './start-devnet';

/**
 * The devnet appends each block with its state changes and snapshots the whole state only every
 * DEVNET_SNAPSHOT_BLOCKS blocks: a SIGKILL at any point must restart to a chain whose state is the one
 * its blocks made (snapshot + the changes of the blocks after it), and a last line cut short is dropped.
 */
jest.setTimeout(120_000);

let devnet: Devnet | undefined;
afterEach(() => devnet?.stop());

const blocksFile = (d: Devnet) => path.join(d.dataDir, 'blocks.jsonl');
const snapshotHead = (d: Devnet) => JSON.parse(fs.readFileSync(path.join(d.dataDir, 'snapshot.json'), 'utf8')).head as number;

async function read(d: Devnet, route: string, body: Record<string, unknown>): Promise<any> {
  return d.post(route, { visible: true, ...body });
}

/** Chain links of blocks 1..head read back over the API: each block's parentHash is the previous block's id. */
async function expectLinkedChain(d: Devnet): Promise<number> {
  const head: number = (await read(d, '/wallet/getnowblock', {})).block_header.raw_data.number;
  let previous: string = (await read(d, '/wallet/getblockbynum', { num: 0 })).blockID;
  for (let start = 1; start <= head; start += 100) {
    const { block } = await read(d, '/wallet/getblockbylimitnext', { startNum: start, endNum: Math.min(start + 100, head + 1) });
    for (const b of block) {
      expect(b.block_header.raw_data.parentHash).toBe(previous);
      previous = b.blockID;
    }
  }
  return head;
}

async function signedTransfer(tw: TronWeb, to: string, amount: number): Promise<any> {
  return tw.trx.sign(await tw.transactionBuilder.sendTrx(to, amount));
}

describe('devnet crash and restart', () => {
  it('restarts after SIGKILL from the snapshot plus the later blocks\' changes, and drops a line cut short', async () => {
    devnet = await startDevnet({ DEVNET_SNAPSHOT_BLOCKS: '1000000' });
    const tw = new TronWeb({ fullHost: devnet.url, privateKey: devnet.accounts.faucet.private_key });
    const pool = devnet.accounts.pool[0];
    const fresh = await Promise.all(Array.from({ length: 6 }, () => tw.createAccount()));
    const txids: string[] = [];
    for (const [i, a] of fresh.entries()) txids.push((await tw.trx.sendTransaction(a.address.base58, 2_000_000 + i)).transaction.txID);
    const poolTw = new TronWeb({ fullHost: devnet.url, privateKey: pool.private_key });
    const delegate = await poolTw.trx.sign(await poolTw.transactionBuilder.delegateResource(50_000_000, fresh[0].address.base58, 'ENERGY', pool.address, true, 600));
    expect(await poolTw.trx.sendRawTransaction(delegate)).toMatchObject({ result: true });
    await Promise.all([...txids, delegate.txID].map((txid) => solidifiedInfo(tw, txid)));

    const state = async (d: Devnet) => ({
      balances: await Promise.all(fresh.map(async (a) => (await read(d, '/wallet/getaccount', { address: a.address.base58 })).balance)),
      solidBalances: await Promise.all(fresh.map(async (a) => (await read(d, '/walletsolidity/getaccount', { address: a.address.base58 })).balance)),
      delegation: await read(d, '/wallet/getdelegatedresourcev2', { fromAddress: pool.address, toAddress: fresh[0].address.base58 }),
      energyLimit: (await read(d, '/wallet/getaccountresource', { address: fresh[0].address.base58 })).EnergyLimit,
      pool: (await read(d, '/wallet/getaccount', { address: pool.address })).account_resource.delegated_frozenV2_balance_for_energy,
      index: await read(d, '/wallet/getdelegatedresourceaccountindexv2', { value: pool.address }),
    });
    const before = await state(devnet);
    expect(before.balances).toEqual(fresh.map((_, i) => 2_000_000 + i));
    expect(before.solidBalances).toEqual(before.balances);
    expect(before.delegation.delegatedResource[0].frozen_balance_for_energy).toBe(50_000_000);
    expect(before.energyLimit).toBeGreaterThan(0);
    const headBefore = await read(devnet, '/wallet/getnowblock', {});

    await devnet.kill();
    // Only genesis was ever snapshotted: everything since comes back from the blocks' changes.
    expect(snapshotHead(devnet)).toBe(0);
    devnet = await startDevnet({ DEVNET_SNAPSHOT_BLOCKS: '1000000' }, devnet.dataDir);
    expect(await state(devnet)).toEqual(before);
    const same = await read(devnet, '/wallet/getblockbynum', { num: headBefore.block_header.raw_data.number });
    expect(same.blockID).toBe(headBefore.blockID);

    // A crash in the middle of an append leaves a partial last line: dropped, the chain goes on from the block before.
    await devnet.kill();
    const linesBefore = fs.readFileSync(blocksFile(devnet), 'utf8').trim().split('\n');
    fs.appendFileSync(blocksFile(devnet), linesBefore.at(-1)!.slice(0, 200));
    devnet = await startDevnet({ DEVNET_SNAPSHOT_BLOCKS: '1000000' }, devnet.dataDir);
    expect(await state(devnet)).toEqual(before);
    await devnet.post('/admin/blocks', { count: 3 });
    const head = await expectLinkedChain(devnet);
    expect(head).toBeGreaterThanOrEqual(linesBefore.length - 1 + 3);
    for (const line of fs.readFileSync(blocksFile(devnet), 'utf8').trim().split('\n')) expect(() => JSON.parse(line)).not.toThrow();

    // A clean stop snapshots the head; the restart needs no replay and shows the same state.
    await devnet.stop();
    expect(snapshotHead(devnet)).toBe(fs.readFileSync(blocksFile(devnet), 'utf8').trim().split('\n').length - 1);
    devnet = await startDevnet({ DEVNET_SNAPSHOT_BLOCKS: '1000000' }, devnet.dataDir);
    expect(await state(devnet)).toEqual(before);

    // A data dir made from another seed is still refused.
    await devnet.kill();
    await expect(startDevnet({ DEVNET_SEED: 'another' }, devnet.dataDir)).rejects.toThrow(/made from seed 'devnet', not 'another'/);
  });

  it('agrees with its blocks after SIGKILL while transfers stream in and snapshots are taken every 3 blocks', async () => {
    const env = { DEVNET_SNAPSHOT_BLOCKS: '3', DEVNET_BLOCK_MS: '50' };
    devnet = await startDevnet(env);
    const tw = new TronWeb({ fullHost: devnet.url, privateKey: devnet.accounts.faucet.private_key });
    const receivers = await Promise.all(Array.from({ length: 80 }, () => tw.createAccount()));
    const signed: any[] = [];
    for (const [i, r] of receivers.entries()) signed.push(await signedTransfer(tw, r.address.base58, 1_000_000 + i));

    const url = devnet.url;
    let sent = 0;
    const broadcasts = Promise.all(
      Array.from({ length: 8 }, async (_, lane) => {
        for (let i = lane; i < signed.length; i += 8) {
          try {
            await fetch(url + '/wallet/broadcasttransaction', { method: 'POST', body: JSON.stringify(signed[i]) });
            sent++;
          } catch {
            return; // the devnet is gone
          }
        }
      }),
    );
    while (sent < signed.length / 2) await new Promise((r) => setTimeout(r, 5));
    await devnet.kill();
    await broadcasts;

    devnet = await startDevnet(env, devnet.dataDir);
    const head = await expectLinkedChain(devnet);
    let included = 0;
    for (const [i, r] of receivers.entries()) {
      const info = await read(devnet, '/wallet/gettransactioninfobyid', { value: signed[i].txID });
      const account = await read(devnet, '/wallet/getaccount', { address: r.address.base58 });
      if (info.blockNumber !== undefined) {
        included++;
        expect(info.blockNumber).toBeLessThanOrEqual(head);
        expect(account.balance).toBe(1_000_000 + i);
      } else {
        // Not in a block that survived: neither is its effect (pending transactions do not survive a restart).
        expect(account).toEqual({});
      }
    }
    expect(included).toBeGreaterThan(0);
  });
});
