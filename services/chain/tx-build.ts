/**
 * Builds and signs the pool's transactions locally (delegate, undelegate, TRX transfer): the protobuf of
 * raw_data written here, its SHA-256 as txID, signed with the pool key. Byte-identical to what java-tron's
 * HTTP API (and TronWeb's builder) make for the same contract and reference block: proved against the
 * devnet's create endpoints in test/integration/chain/local-build.test.ts. TronWeb's builder and
 * `trx.sign` cost a protobuf library round trip, a validator pass, and the key's address derived again
 * per signature (an elliptic-curve multiplication) to check the owner, which the caller here already knows.
 * The signed JSON has the shape TronWeb produced (visible false, hex addresses), so stored sets and
 * broadcasts read the same.
 */
import { createHash } from 'node:crypto';
import { TronWeb } from 'tronweb';
import { signDigest } from './signing';

export type ContractValue =
  | { type: 'TransferContract'; owner: string; to: string; amount: bigint }
  | { type: 'DelegateResourceContract'; owner: string; receiver: string; resource: 'ENERGY' | 'BANDWIDTH'; balance: bigint }
  | { type: 'UnDelegateResourceContract'; owner: string; receiver: string; resource: 'ENERGY' | 'BANDWIDTH'; balance: bigint };

/** TAPOS fields of raw_data, as RefBlock carries them. */
export interface TxHeader {
  ref_block_bytes: string;
  ref_block_hash: string;
  expiration: number;
  timestamp: number;
}

export interface LocalSignedTx {
  txID: string;
  /** The signed transaction as TronWeb's builder and sign made it (raw_data with hex addresses). */
  json: { visible: false; txID: string; raw_data_hex: string; raw_data: Record<string, unknown>; signature: string[] };
}

const TYPE_NUMBER = { TransferContract: 1, DelegateResourceContract: 57, UnDelegateResourceContract: 58 } as const;
const RESOURCE_NUMBER = { BANDWIDTH: 0, ENERGY: 1 } as const;

/** Protobuf writer for the few fields raw_data needs (proto3: field order, default values left out). */
class Pb {
  private readonly parts: number[] = [];

  private raw(v: bigint | number): void {
    let n = BigInt(v);
    if (n < 0n) n = BigInt.asUintN(64, n);
    while (n >= 0x80n) {
      this.parts.push(Number(n & 0x7fn) | 0x80);
      n >>= 7n;
    }
    this.parts.push(Number(n));
  }

  varint(field: number, v: bigint | number): this {
    if (BigInt(v) === 0n) return this;
    this.raw((field << 3) | 0);
    this.raw(v);
    return this;
  }

  bytes(field: number, b: Uint8Array): this {
    if (b.length === 0) return this;
    this.raw((field << 3) | 2);
    this.raw(b.length);
    for (const x of b) this.parts.push(x);
    return this;
  }

  done(): Buffer {
    return Buffer.from(this.parts);
  }
}

/**
 * Base58 addresses to hex (41...), remembered: the pool's few addresses and receivers that repeat.
 * Bounded: cleared when it grows past a few thousand receivers.
 */
const hexOf = new Map<string, string>();
export function addressHex(address: string): string {
  let hex = hexOf.get(address);
  if (hex === undefined) {
    hex = address.startsWith('41') && address.length === 42 ? address.toLowerCase() : (TronWeb.address.toHex(address) as string).toLowerCase();
    if (!/^41[0-9a-f]{40}$/.test(hex)) throw new Error(`not a TRON address: ${address}`);
    if (hexOf.size >= 4096) hexOf.clear();
    hexOf.set(address, hex);
  }
  return hex;
}

function contractBytes(c: ContractValue): Buffer {
  const owner = Buffer.from(addressHex(c.owner), 'hex');
  if (c.type === 'TransferContract') return new Pb().bytes(1, owner).bytes(2, Buffer.from(addressHex(c.to), 'hex')).varint(3, c.amount).done();
  return new Pb().bytes(1, owner).varint(2, RESOURCE_NUMBER[c.resource]).varint(3, c.balance).bytes(4, Buffer.from(addressHex(c.receiver), 'hex')).done();
}

/** parameter.value as TronWeb's builder writes it (its key order; the default resource left out). */
function contractJson(c: ContractValue): Record<string, unknown> {
  if (c.type === 'TransferContract') return { to_address: addressHex(c.to), owner_address: addressHex(c.owner), amount: Number(c.amount) };
  const value: Record<string, unknown> = { owner_address: addressHex(c.owner), receiver_address: addressHex(c.receiver), balance: Number(c.balance) };
  if (c.resource !== 'BANDWIDTH') value.resource = c.resource;
  return value;
}

/** raw_data's protobuf bytes for one contract against `header`. */
export function rawDataBytes(c: ContractValue, header: TxHeader): Buffer {
  const typeUrl = `type.googleapis.com/protocol.${c.type}`;
  const any = new Pb().bytes(1, Buffer.from(typeUrl, 'utf8')).bytes(2, contractBytes(c)).done();
  const contract = new Pb().varint(1, TYPE_NUMBER[c.type]).bytes(2, any).done();
  return new Pb()
    .bytes(1, Buffer.from(header.ref_block_bytes, 'hex'))
    .bytes(4, Buffer.from(header.ref_block_hash, 'hex'))
    .varint(8, header.expiration)
    .bytes(11, contract)
    .varint(14, header.timestamp)
    .done();
}

/** Builds, hashes and signs one transaction with `privateKey` (hex), whose address is the contract's owner. */
export function buildAndSign(c: ContractValue, header: TxHeader, privateKey: string): LocalSignedTx {
  if (c.type !== 'TransferContract' && addressHex(c.receiver) === addressHex(c.owner)) throw new Error('Receiver address must not be the same as owner address');
  if ((c.type === 'TransferContract' ? c.amount : c.balance) <= 0n) throw new Error('amount must be positive');
  const raw = rawDataBytes(c, header);
  const txID = createHash('sha256').update(raw).digest('hex');
  const unsigned = {
    visible: false as const,
    txID,
    raw_data_hex: raw.toString('hex'),
    raw_data: {
      contract: [{ parameter: { value: contractJson(c), type_url: `type.googleapis.com/protocol.${c.type}` }, type: c.type }],
      ref_block_bytes: header.ref_block_bytes,
      ref_block_hash: header.ref_block_hash,
      expiration: header.expiration,
      timestamp: header.timestamp,
    },
  };
  // The txID (the raw data's hash) signed with the key, as TronWeb's signTransaction does; never re-deriving the address.
  return { txID, json: { ...unsigned, signature: [signDigest(privateKey, txID)] } };
}
