/**
 * TRC-10 system contracts (java-tron core/contract/asset_issue_contract.proto): AssetIssueContract
 * (type 6) and TransferAssetContract (type 2). Kept apart from contracts.ts so the asset rules stay in
 * one place; contracts.ts only registers them.
 */
import type { HexAddress } from '../crypto/address';
import { FormatError, readAddress, readHex, readInt64 } from './json-values';
import { PbWriter } from './protobuf';

export interface AssetIssue {
  type: 'AssetIssueContract';
  owner: HexAddress;
  name: Buffer;
  abbr: Buffer;
  totalSupply: bigint;
  trxNum: bigint;
  precision: bigint;
  num: bigint;
  startTime: bigint;
  endTime: bigint;
  description: Buffer;
  url: Buffer;
  freeAssetNetLimit: bigint;
  publicFreeAssetNetLimit: bigint;
}

export interface TransferAsset {
  type: 'TransferAssetContract';
  owner: HexAddress;
  to: HexAddress;
  /** The token id as its decimal string's bytes (ALLOW_SAME_TOKEN_NAME is on, as on mainnet). */
  assetName: Buffer;
  amount: bigint;
}

export type AssetContract = AssetIssue | TransferAsset;

export function parseAssetContract(type: AssetContract['type'], v: Record<string, unknown>): AssetContract {
  const owner = readAddress(v.owner_address, 'owner_address');
  if (type === 'TransferAssetContract') {
    return { type, owner, to: readAddress(v.to_address, 'to_address'), assetName: readHex(v.asset_name, 'asset_name'), amount: readInt64(v.amount, 'amount') };
  }
  if (Array.isArray(v.frozen_supply) && v.frozen_supply.length > 0) throw new FormatError('frozen_supply is not supported by the devnet');
  return {
    type,
    owner,
    name: readHex(v.name, 'name'),
    abbr: readHex(v.abbr, 'abbr'),
    totalSupply: readInt64(v.total_supply, 'total_supply'),
    trxNum: readInt64(v.trx_num, 'trx_num'),
    precision: readInt64(v.precision, 'precision'),
    num: readInt64(v.num, 'num'),
    startTime: readInt64(v.start_time, 'start_time'),
    endTime: readInt64(v.end_time, 'end_time'),
    description: readHex(v.description, 'description'),
    url: readHex(v.url, 'url'),
    freeAssetNetLimit: readInt64(v.free_asset_net_limit, 'free_asset_net_limit'),
    publicFreeAssetNetLimit: readInt64(v.public_free_asset_net_limit, 'public_free_asset_net_limit'),
  };
}

const addr = (a: HexAddress) => Buffer.from(a, 'hex');

/** Protobuf bytes; field numbers as in java-tron's proto (TransferAssetContract has owner at 2). */
export function encodeAssetContract(c: AssetContract): Buffer {
  if (c.type === 'TransferAssetContract') {
    return new PbWriter().bytes(1, c.assetName).bytes(2, addr(c.owner)).bytes(3, addr(c.to)).varint(4, c.amount).finish();
  }
  return new PbWriter()
    .bytes(1, addr(c.owner)).bytes(2, c.name).bytes(3, c.abbr).varint(4, c.totalSupply)
    .varint(6, c.trxNum).varint(7, c.precision).varint(8, c.num).varint(9, c.startTime).varint(10, c.endTime)
    .bytes(20, c.description).bytes(21, c.url).varint(22, c.freeAssetNetLimit).varint(23, c.publicFreeAssetNetLimit)
    .finish();
}

/** parameter.value as java-tron prints it with visible=false (bytes as hex, defaults omitted). */
export function assetContractValueJson(c: AssetContract): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const put = (key: string, value: bigint | Buffer | HexAddress) => {
    if (value === 0n || (Buffer.isBuffer(value) && value.length === 0)) return;
    out[key] = Buffer.isBuffer(value) ? value.toString('hex') : value;
  };
  const fields: [string, bigint | Buffer | HexAddress][] =
    c.type === 'TransferAssetContract'
      ? [['asset_name', c.assetName], ['owner_address', c.owner], ['to_address', c.to], ['amount', c.amount]]
      : [
        ['owner_address', c.owner], ['name', c.name], ['abbr', c.abbr], ['total_supply', c.totalSupply], ['trx_num', c.trxNum],
        ['precision', c.precision], ['num', c.num], ['start_time', c.startTime], ['end_time', c.endTime], ['description', c.description],
        ['url', c.url], ['free_asset_net_limit', c.freeAssetNetLimit], ['public_free_asset_net_limit', c.publicFreeAssetNetLimit],
      ];
  for (const [key, value] of fields) put(key, value);
  return out;
}
