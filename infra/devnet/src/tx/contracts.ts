import type { HexAddress } from '../crypto/address';
import { FormatError, readAddress, readBool, readHex, readInt64 } from './json-values';
import { PbWriter } from './protobuf';
import { assetContractValueJson, encodeAssetContract, parseAssetContract, type AssetContract } from './asset-contracts';

/** Stake 2.0 resource codes (protocol ResourceCode). */
export type Resource = 'BANDWIDTH' | 'ENERGY';
const RESOURCE_CODES: Record<string, Resource> = { BANDWIDTH: 'BANDWIDTH', ENERGY: 'ENERGY', '0': 'BANDWIDTH', '1': 'ENERGY' };
const RESOURCE_NUMBER: Record<Resource, number> = { BANDWIDTH: 0, ENERGY: 1 };

/** The system contracts the devnet executes, decoded from a transaction's raw_data. */
export type Contract =
  | { type: 'TransferContract'; owner: HexAddress; to: HexAddress; amount: bigint }
  | { type: 'TriggerSmartContract'; owner: HexAddress; contract: HexAddress; callValue: bigint; data: Buffer; callTokenValue: bigint; tokenId: bigint }
  | { type: 'FreezeBalanceV2Contract'; owner: HexAddress; amount: bigint; resource: Resource }
  | { type: 'UnfreezeBalanceV2Contract'; owner: HexAddress; amount: bigint; resource: Resource }
  | { type: 'WithdrawExpireUnfreezeContract'; owner: HexAddress }
  | { type: 'DelegateResourceContract'; owner: HexAddress; receiver: HexAddress; balance: bigint; resource: Resource; lock: boolean; lockPeriod: bigint }
  | { type: 'UnDelegateResourceContract'; owner: HexAddress; receiver: HexAddress; balance: bigint; resource: Resource }
  | AssetContract;

export type ContractType = Contract['type'];

/** protocol.Transaction.Contract.ContractType numbers. */
export const CONTRACT_TYPE_NUMBER: Record<ContractType, number> = {
  TransferContract: 1,
  TriggerSmartContract: 31,
  FreezeBalanceV2Contract: 54,
  UnfreezeBalanceV2Contract: 55,
  WithdrawExpireUnfreezeContract: 56,
  DelegateResourceContract: 57,
  UnDelegateResourceContract: 58,
  TransferAssetContract: 2,
  AssetIssueContract: 6,
};

export function isContractType(value: unknown): value is ContractType {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(CONTRACT_TYPE_NUMBER, value);
}

function readResource(value: unknown): Resource {
  if (value === undefined || value === null || value === '') return 'BANDWIDTH';
  const resource = RESOURCE_CODES[String(value)];
  if (!resource) throw new FormatError(`Unsupported resource ${String(value)}`);
  return resource;
}

/** Decodes a contract's parameter.value (addresses in either hex or base58 form). */
export function parseContract(type: ContractType, v: Record<string, unknown>): Contract {
  if (type === 'AssetIssueContract' || type === 'TransferAssetContract') return parseAssetContract(type, v);
  const owner = readAddress(v.owner_address, 'owner_address');
  switch (type) {
    case 'TransferContract':
      return { type, owner, to: readAddress(v.to_address, 'to_address'), amount: readInt64(v.amount, 'amount') };
    case 'TriggerSmartContract':
      return {
        type,
        owner,
        contract: readAddress(v.contract_address, 'contract_address'),
        callValue: readInt64(v.call_value, 'call_value'),
        data: readHex(v.data, 'data'),
        callTokenValue: readInt64(v.call_token_value, 'call_token_value'),
        tokenId: readInt64(v.token_id, 'token_id'),
      };
    case 'FreezeBalanceV2Contract':
      return { type, owner, amount: readInt64(v.frozen_balance, 'frozen_balance'), resource: readResource(v.resource) };
    case 'UnfreezeBalanceV2Contract':
      return { type, owner, amount: readInt64(v.unfreeze_balance, 'unfreeze_balance'), resource: readResource(v.resource) };
    case 'WithdrawExpireUnfreezeContract':
      return { type, owner };
    case 'DelegateResourceContract':
      return {
        type,
        owner,
        receiver: readAddress(v.receiver_address, 'receiver_address'),
        balance: readInt64(v.balance, 'balance'),
        resource: readResource(v.resource),
        lock: readBool(v.lock),
        lockPeriod: readInt64(v.lock_period, 'lock_period'),
      };
    case 'UnDelegateResourceContract':
      return {
        type,
        owner,
        receiver: readAddress(v.receiver_address, 'receiver_address'),
        balance: readInt64(v.balance, 'balance'),
        resource: readResource(v.resource),
      };
  }
}

const addr = (a: HexAddress) => Buffer.from(a, 'hex');

/** Protobuf bytes of the contract message (field numbers from java-tron's balance/smart contract protos). */
export function encodeContract(c: Contract): Buffer {
  if (c.type === 'AssetIssueContract' || c.type === 'TransferAssetContract') return encodeAssetContract(c);
  const w = new PbWriter().bytes(1, addr(c.owner));
  switch (c.type) {
    case 'TransferContract':
      return w.bytes(2, addr(c.to)).varint(3, c.amount).finish();
    case 'TriggerSmartContract':
      return w.bytes(2, addr(c.contract)).varint(3, c.callValue).bytes(4, c.data).varint(5, c.callTokenValue).varint(6, c.tokenId).finish();
    case 'FreezeBalanceV2Contract':
    case 'UnfreezeBalanceV2Contract':
      return w.varint(2, c.amount).varint(3, RESOURCE_NUMBER[c.resource]).finish();
    case 'WithdrawExpireUnfreezeContract':
      return w.finish();
    case 'DelegateResourceContract':
      return w.varint(2, RESOURCE_NUMBER[c.resource]).varint(3, c.balance).bytes(4, addr(c.receiver)).varint(5, c.lock).varint(6, c.lockPeriod).finish();
    case 'UnDelegateResourceContract':
      return w.varint(2, RESOURCE_NUMBER[c.resource]).varint(3, c.balance).bytes(4, addr(c.receiver)).finish();
  }
}

/** parameter.value as java-tron prints it (defaults omitted, int64 kept as bigint for the JSON writer). */
export function contractValueJson(c: Contract): Record<string, unknown> {
  if (c.type === 'AssetIssueContract' || c.type === 'TransferAssetContract') return assetContractValueJson(c);
  const out: Record<string, unknown> = { owner_address: c.owner };
  const put = (key: string, value: bigint | boolean | string | undefined) => {
    if (value === undefined || value === 0n || value === false || value === '') return;
    out[key] = value;
  };
  switch (c.type) {
    case 'TransferContract':
      put('to_address', c.to);
      put('amount', c.amount);
      break;
    case 'TriggerSmartContract':
      put('contract_address', c.contract);
      put('call_value', c.callValue);
      put('data', c.data.toString('hex'));
      put('call_token_value', c.callTokenValue);
      put('token_id', c.tokenId);
      break;
    case 'FreezeBalanceV2Contract':
      put('frozen_balance', c.amount);
      if (c.resource !== 'BANDWIDTH') out.resource = c.resource;
      break;
    case 'UnfreezeBalanceV2Contract':
      put('unfreeze_balance', c.amount);
      if (c.resource !== 'BANDWIDTH') out.resource = c.resource;
      break;
    case 'WithdrawExpireUnfreezeContract':
      break;
    case 'DelegateResourceContract':
      if (c.resource !== 'BANDWIDTH') out.resource = c.resource;
      put('balance', c.balance);
      put('receiver_address', c.receiver);
      put('lock', c.lock);
      put('lock_period', c.lockPeriod);
      break;
    case 'UnDelegateResourceContract':
      if (c.resource !== 'BANDWIDTH') out.resource = c.resource;
      put('balance', c.balance);
      put('receiver_address', c.receiver);
      break;
  }
  return out;
}

/** Every address a contract names, for rendering with visible=true. */
export const ADDRESS_FIELDS = ['owner_address', 'to_address', 'receiver_address', 'contract_address'] as const;
