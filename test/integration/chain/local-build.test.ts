/**
 * The pool's transactions built and signed locally (services/chain/tx-build.ts, through ChainWriter) are
 * byte-identical to what the node's HTTP API builds for the same contract and reference block: raw_data_hex
 * and txID equal for a delegation (energy and bandwidth), an undelegation and an activation transfer, the
 * reference taken from a recent block the node built its own with. The signature is the one TronWeb's
 * `trx.sign` makes over the node's transaction, and the node accepts the local bytes and puts them in a block.
 */
import { TronWeb } from 'tronweb';
import { signerOf } from '../../../services/chain/pool-keys';
import { ChainWriter, type ChainResource, type RefBlock } from '../../../services/chain/writes';
import { parseOwnJson } from '../../../services/platform/json';
import { startDevnet, type Devnet } from '../../devnet/start-devnet';
import { eventually } from '../../support/world';

let devnet: Devnet;
let writer: ChainWriter;
let tronWeb: TronWeb;

beforeAll(async () => {
  devnet = await startDevnet({ DEVNET_BLOCK_MS: '500' });
  writer = ChainWriter.fromConfig({ TRON_FULL_HOST: devnet.url });
  tronWeb = new TronWeb({ fullHost: devnet.url });
}, 120_000);

afterAll(async () => {
  await devnet?.stop();
});

async function nodeBuilds(endpoint: string, body: Record<string, unknown>): Promise<any> {
  const answer: any = await (await fetch(`${devnet.url}/wallet/${endpoint}`, { method: 'POST', body: JSON.stringify({ ...body, visible: true }) })).json();
  if (!answer.txID) throw new Error(`${endpoint}: ${JSON.stringify(answer)}`);
  return answer;
}

/** The node's reference block and expiration as a RefBlock (the node builds against a recent head block). */
const refOf = (tx: any): RefBlock => ({
  ref_block_bytes: tx.raw_data.ref_block_bytes, ref_block_hash: tx.raw_data.ref_block_hash, expiration: tx.raw_data.expiration, timestamp: tx.raw_data.timestamp,
});

async function sameAsNode(local: { txId: string; signedTx: string }, node: any, privateKey: string): Promise<void> {
  const signed = parseOwnJson(local.signedTx) as any;
  expect(signed.raw_data_hex).toBe(node.raw_data_hex);
  expect(local.txId).toBe(node.txID);
  expect(signed.txID).toBe(node.txID);
  // The node's transaction (visible addresses) signed by TronWeb: the same signature over the same hash.
  const viaTronWeb = await tronWeb.trx.sign({ ...node, visible: true }, privateKey);
  expect(signed.signature).toEqual(viaTronWeb.signature);
}

test('delegations, an undelegation and a transfer: raw_data_hex, txID and signature as the node and TronWeb make them; the node accepts the local bytes', async () => {
  const pool = signerOf(devnet.accounts.pool[0].private_key);
  const receiver = devnet.accounts.customers[0].address;
  const sun = 7_000_000n;
  for (const resource of ['ENERGY', 'BANDWIDTH'] as ChainResource[]) {
    const node = await nodeBuilds('delegateresource', { owner_address: pool.address, receiver_address: receiver, balance: Number(sun), resource, lock: false });
    await sameAsNode(await writer.signDelegate(pool, receiver, resource, sun, refOf(node)), node, pool.privateKey);
  }
  const transfer = await nodeBuilds('createtransaction', { owner_address: pool.address, to_address: receiver, amount: 1_234_567 });
  await sameAsNode(await writer.signTransfer(pool, receiver, 1_234_567n, refOf(transfer)), transfer, pool.privateKey);

  // A local delegation against a fresh head is accepted and lands; then its undelegation, built by both.
  const delegation = await writer.signDelegate(pool, receiver, 'ENERGY', sun, await writer.refBlock(60_000));
  expect(await writer.broadcast(delegation.signedTx)).toEqual({ kind: 'accepted' });
  expect(await writer.broadcast(delegation.signedTx)).toEqual({ kind: 'duplicate' });
  await eventually(async () => (await writer.delegatedSun(pool.address, receiver, 'ENERGY')) >= sun, 20_000, 'local delegation in a block');
  const undo = await nodeBuilds('undelegateresource', { owner_address: pool.address, receiver_address: receiver, balance: Number(sun), resource: 'ENERGY' });
  const localUndo = await writer.signUndelegate(pool, receiver, 'ENERGY', sun, refOf(undo));
  await sameAsNode(localUndo, undo, pool.privateKey);
  expect(await writer.broadcast(localUndo.signedTx)).toEqual({ kind: 'accepted' });
});

test('the reference block is the head: number, hash and time as getnowblock reports them', async () => {
  const ref = await writer.refBlock(30_000);
  const head: any = await (await fetch(`${devnet.url}/wallet/getblockbynum`, { method: 'POST', body: JSON.stringify({ num: ref.number }) })).json();
  expect(ref.ref_block_hash).toBe(head.blockID.slice(16, 32));
  expect(ref.ref_block_bytes).toBe((ref.number as number).toString(16).slice(-4).padStart(4, '0'));
  expect(ref.expiration).toBe(head.block_header.raw_data.timestamp + 30_000);
});

test('a node that does not answer is ChainUnavailable, within the call timeout', async () => {
  const down = ChainWriter.fromConfig({ TRON_FULL_HOST: 'http://127.0.0.1:9' });
  await expect(down.refBlock(30_000)).rejects.toMatchObject({ name: 'ChainUnavailable' });
  await expect(down.broadcast('{}')).rejects.toMatchObject({ name: 'ChainUnavailable' });
});
