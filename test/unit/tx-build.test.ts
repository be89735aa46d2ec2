/**
 * Local transaction building (services/chain/tx-build.ts) against TronWeb's own builder and signer for the
 * same inputs: the same signed JSON (raw_data, raw_data_hex, txID, signature), for the pool's three
 * contracts, both resources, and amounts around varint boundaries. No node: TronWeb builds locally when
 * given the reference block. (The node's HTTP API itself: test/integration/chain/local-build.test.ts.)
 */
import { TronWeb } from 'tronweb';
import { devnetKey, signerOf } from '../../services/chain/pool-keys';
import { addressHex, buildAndSign } from '../../services/chain/tx-build';

const pool = signerOf(devnetKey('unit', 'pool:0'));
const receiver = signerOf(devnetKey('unit', 'customer:0')).address;
const tronWeb = new TronWeb({ fullHost: 'http://127.0.0.1:9' });
const header = { ref_block_bytes: '1a2b', ref_block_hash: '0011223344556677', expiration: 1_764_000_060_000, timestamp: 1_764_000_000_123 };

async function viaTronWeb(build: () => Promise<any>): Promise<any> {
  return JSON.parse(JSON.stringify(await tronWeb.trx.sign(await build(), pool.privateKey)));
}

test.each([
  ['ENERGY', 1_000_000n], ['BANDWIDTH', 1_000_000n], ['ENERGY', 127n], ['ENERGY', 128n], ['ENERGY', 9_007_199_254_740_000n], ['BANDWIDTH', 42_000_000_000n],
] as const)('delegate and undelegate %s %s: as TronWeb builds and signs them', async (resource, sun) => {
  const opts = { blockHeader: header };
  const delegate = buildAndSign({ type: 'DelegateResourceContract', owner: pool.address, receiver, resource, balance: sun }, header, pool.privateKey);
  expect(delegate.json).toEqual(await viaTronWeb(() => tronWeb.transactionBuilder.delegateResource(Number(sun), receiver, resource, pool.address, false, undefined, opts)));
  const undelegate = buildAndSign({ type: 'UnDelegateResourceContract', owner: pool.address, receiver, resource, balance: sun }, header, pool.privateKey);
  expect(undelegate.json).toEqual(await viaTronWeb(() => tronWeb.transactionBuilder.undelegateResource(Number(sun), receiver, resource, pool.address, opts)));
  expect(delegate.txID).not.toBe(undelegate.txID);
});

test('a TRX transfer (activation): as TronWeb builds and signs it', async () => {
  const tx = buildAndSign({ type: 'TransferContract', owner: pool.address, to: receiver, amount: 1_100_000n }, header, pool.privateKey);
  expect(tx.json).toEqual(await viaTronWeb(() => tronWeb.transactionBuilder.sendTrx(receiver, 1_100_000, pool.address, { blockHeader: header })));
  expect(JSON.stringify(tx.json)).toBe(JSON.stringify(await viaTronWeb(() => tronWeb.transactionBuilder.sendTrx(receiver, 1_100_000, pool.address, { blockHeader: header }))));
});

test('refused before signing: a receiver that is the owner, a non-positive amount, an address that is not one', () => {
  expect(() => buildAndSign({ type: 'DelegateResourceContract', owner: pool.address, receiver: pool.address, resource: 'ENERGY', balance: 1n }, header, pool.privateKey)).toThrow();
  expect(() => buildAndSign({ type: 'TransferContract', owner: pool.address, to: receiver, amount: 0n }, header, pool.privateKey)).toThrow();
  expect(() => addressHex('Tnotanaddress')).toThrow();
});
