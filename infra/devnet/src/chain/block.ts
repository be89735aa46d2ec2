import type { ExecOutcome } from '../actuators/context';
import { sha256, type HexAddress } from '../crypto/address';
import { signTxid } from '../crypto/keys';
import { PbWriter } from '../tx/protobuf';
import type { RawTx } from '../tx/transaction';

/** A transaction the node accepted, with what executing it did. */
export interface StoredTx {
  readonly txid: string;
  readonly raw: RawTx;
  readonly rawHex: string;
  readonly signatures: readonly string[];
  readonly outcome: ExecOutcome;
  blockNumber?: number;
  blockTimestamp?: number;
}

export interface Block {
  readonly number: number;
  readonly id: string;
  readonly parentHash: string;
  readonly timestamp: number;
  readonly txTrieRoot: string;
  readonly witness: HexAddress;
  readonly witnessSignature: string;
  readonly txs: readonly StoredTx[];
}

/** java-tron block header version for current mainnet blocks. */
export const BLOCK_VERSION = 32;

/** Merkle root over the txids (pairwise SHA-256); an empty block has the all-zero root. */
function txTrieRoot(txids: readonly string[]): string {
  if (txids.length === 0) return '00'.repeat(32);
  let level: Buffer[] = txids.map((id) => Buffer.from(id, 'hex'));
  while (level.length > 1) {
    const next: Buffer[] = [];
    for (let i = 0; i < level.length; i += 2) next.push(i + 1 < level.length ? sha256(Buffer.concat([level[i], level[i + 1]])) : level[i]);
    level = next;
  }
  return level[0].toString('hex');
}

/**
 * Seals a block. Its id is, as in java-tron's BlockCapsule, the SHA-256 of the header raw data
 * with the first 8 bytes replaced by the block number — which is what TAPOS references.
 */
export function sealBlock(number: number, parentHash: string, timestamp: number, witness: HexAddress, witnessKey: string, txs: StoredTx[]): Block {
  const root = txTrieRoot(txs.map((t) => t.txid));
  const raw = new PbWriter()
    .varint(1, timestamp)
    .bytes(2, Buffer.from(root, 'hex'))
    .bytes(3, Buffer.from(parentHash, 'hex'))
    .varint(7, number)
    .bytes(9, Buffer.from(witness, 'hex'))
    .varint(10, BLOCK_VERSION)
    .finish();
  const hash = sha256(raw);
  const id = number.toString(16).padStart(16, '0') + hash.subarray(8).toString('hex');
  return { number, id, parentHash, timestamp, txTrieRoot: root, witness, witnessSignature: signTxid(hash.toString('hex'), witnessKey), txs };
}
