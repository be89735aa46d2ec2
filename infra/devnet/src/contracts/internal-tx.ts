import { utils } from 'tronweb';
import type { HexAddress } from '../crypto/address';

const { keccak256 } = utils.ethersUtils;

function int64Bytes(n: bigint | number): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigInt64BE(BigInt(n));
  return b;
}

/**
 * java-tron's InternalTransaction.getHash for a child call: keccak256 over the parent's hash, the
 * receiving address (21 bytes, 41-prefixed), the call data and the value (8 bytes, big endian),
 * followed by the nonce (8 bytes). The parent of a top-level call is the transaction id.
 */
export function internalTxHash(parentHash: string, to: HexAddress, data: Buffer, value: bigint, nonce: number): string {
  const forHash = Buffer.concat([Buffer.from(parentHash, 'hex'), Buffer.from(to, 'hex'), data, int64Bytes(value), int64Bytes(nonce)]);
  return keccak256(forHash).slice(2);
}
