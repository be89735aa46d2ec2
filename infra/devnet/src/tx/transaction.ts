import { sha256 } from '../crypto/address';
import { CONTRACT_TYPE_NUMBER, contractValueJson, encodeContract, isContractType, parseContract, type Contract } from './contracts';
import { FormatError, readHex, readInt64 } from './json-values';
import { PbWriter } from './protobuf';

/** protocol.Transaction.raw, restricted to what TronWeb and java-tron set for one contract. */
export interface RawTx {
  readonly contract: Contract;
  readonly permissionId: number;
  readonly refBlockBytes: Buffer;
  readonly refBlockHash: Buffer;
  readonly expiration: bigint;
  readonly timestamp: bigint;
  readonly feeLimit: bigint;
  /** The memo (raw_data.data). */
  readonly data: Buffer;
}

export interface SignedTx {
  readonly raw: RawTx;
  readonly rawBytes: Buffer;
  readonly txid: string;
  readonly signatures: readonly string[];
}

export function encodeRawData(raw: RawTx): Buffer {
  const any = new PbWriter()
    .string(1, 'type.googleapis.com/protocol.' + raw.contract.type)
    .bytes(2, encodeContract(raw.contract))
    .finish();
  const contract = new PbWriter()
    .varint(1, CONTRACT_TYPE_NUMBER[raw.contract.type])
    .bytes(2, any)
    .varint(5, raw.permissionId)
    .finish();
  return new PbWriter()
    .bytes(1, raw.refBlockBytes)
    .bytes(4, raw.refBlockHash)
    .varint(8, raw.expiration)
    .bytes(10, raw.data)
    .bytes(11, contract)
    .varint(14, raw.timestamp)
    .varint(18, raw.feeLimit)
    .finish();
}

/** The txid is the SHA-256 of the raw data bytes; the signature covers exactly this hash. */
export function txidOf(rawBytes: Uint8Array): string {
  return sha256(rawBytes).toString('hex');
}

export function parseRawData(json: unknown): RawTx {
  if (typeof json !== 'object' || json === null) throw new FormatError('raw_data is missing');
  const r = json as Record<string, unknown>;
  const contracts = r.contract;
  if (!Array.isArray(contracts) || contracts.length !== 1) throw new FormatError('raw_data.contract must hold exactly one contract');
  const c = contracts[0] as Record<string, unknown>;
  const type = c?.type;
  if (!isContractType(type)) throw new FormatError(`Unsupported contract type ${String(type)}`);
  const parameter = c.parameter as Record<string, unknown> | undefined;
  const value = parameter?.value;
  if (typeof value !== 'object' || value === null) throw new FormatError('contract parameter value is missing');
  return {
    contract: parseContract(type, value as Record<string, unknown>),
    permissionId: Number(readInt64(c.Permission_id, 'Permission_id')),
    refBlockBytes: readHex(r.ref_block_bytes, 'ref_block_bytes'),
    refBlockHash: readHex(r.ref_block_hash, 'ref_block_hash'),
    expiration: readInt64(r.expiration, 'expiration'),
    timestamp: readInt64(r.timestamp, 'timestamp'),
    feeLimit: readInt64(r.fee_limit, 'fee_limit'),
    data: readHex(r.data, 'data'),
  };
}

/** Reads a broadcast body: java-tron rebuilds the protobuf from raw_data and ignores txID/raw_data_hex. */
export function parseSignedTx(body: unknown): SignedTx {
  if (typeof body !== 'object' || body === null) throw new FormatError('transaction JSON is missing');
  const b = body as Record<string, unknown>;
  const raw = parseRawData(b.raw_data);
  const signatures = b.signature === undefined ? [] : b.signature;
  if (!Array.isArray(signatures) || signatures.some((s) => typeof s !== 'string' || !/^(0x)?[0-9a-fA-F]*$/.test(s))) {
    throw new FormatError('signature must be a list of hex strings');
  }
  const rawBytes = encodeRawData(raw);
  return { raw, rawBytes, txid: txidOf(rawBytes), signatures: signatures.map((s: string) => s.replace(/^0x/, '').toLowerCase()) };
}

/** raw_data as java-tron prints it with visible=false. */
export function rawDataJson(raw: RawTx): Record<string, unknown> {
  const contract: Record<string, unknown> = {
    parameter: { value: contractValueJson(raw.contract), type_url: 'type.googleapis.com/protocol.' + raw.contract.type },
    type: raw.contract.type,
  };
  if (raw.permissionId) contract.Permission_id = raw.permissionId;
  const out: Record<string, unknown> = { contract: [contract], ref_block_bytes: raw.refBlockBytes.toString('hex'), ref_block_hash: raw.refBlockHash.toString('hex'), expiration: raw.expiration };
  if (raw.data.length) out.data = raw.data.toString('hex');
  if (raw.feeLimit) out.fee_limit = raw.feeLimit;
  if (raw.timestamp) out.timestamp = raw.timestamp;
  return out;
}
