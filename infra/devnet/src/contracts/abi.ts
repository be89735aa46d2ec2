import { utils } from 'tronweb';
import type { HexAddress } from '../crypto/address';

const coder = new utils.ethersUtils.AbiCoder();
const { keccak256 } = utils.ethersUtils;

/** The 4-byte selector of a function signature, as hex. */
export function selector(signature: string): string {
  return keccak256(Buffer.from(signature, 'utf8')).slice(2, 10);
}

/** keccak256 of an event signature: topic 0 of its logs. */
export function eventTopic(signature: string): string {
  return keccak256(Buffer.from(signature, 'utf8')).slice(2);
}

export function encode(types: readonly string[], values: readonly unknown[]): Buffer {
  return Buffer.from(coder.encode(types, values).slice(2), 'hex');
}

export function decode(types: readonly string[], data: Buffer): unknown[] {
  return [...coder.decode(types, data)];
}

/** An ABI address word back to a TRON address. */
export function tronAddressOfWord(value: unknown): HexAddress {
  return '41' + String(value).slice(2).toLowerCase();
}

/** A TRON address as the 0x-prefixed 20-byte value ABI encoding expects. */
export function evmAddress(address: HexAddress): string {
  return '0x' + address.slice(2);
}

/** A 20-byte address left-padded to a 32-byte topic. */
export function addressTopic(address: HexAddress): string {
  return address.slice(2).padStart(64, '0');
}

/** java-tron's JSON form of one ABI entry (SmartContract.ABI.Entry). */
export interface AbiEntry {
  readonly name: string;
  readonly type: 'Function' | 'Event';
  readonly inputs?: readonly { readonly name: string; readonly type: string; readonly indexed?: boolean }[];
  readonly outputs?: readonly { readonly name?: string; readonly type: string }[];
  readonly constant?: boolean;
  readonly stateMutability?: 'View' | 'Nonpayable' | 'Payable';
  readonly payable?: boolean;
  readonly anonymous?: boolean;
}

export function viewFn(name: string, inputs: { name: string; type: string }[], outputs: { name?: string; type: string }[]): AbiEntry {
  return { name, type: 'Function', inputs, outputs, constant: true, stateMutability: 'View' };
}

export function writeFn(name: string, inputs: { name: string; type: string }[], outputs: { name?: string; type: string }[]): AbiEntry {
  return { name, type: 'Function', inputs, outputs, stateMutability: 'Nonpayable' };
}

export function payableFn(name: string, inputs: { name: string; type: string }[], outputs: { name?: string; type: string }[]): AbiEntry {
  return { name, type: 'Function', inputs, outputs, payable: true, stateMutability: 'Payable' };
}

/** The canonical signature used for the selector, e.g. transfer(address,uint256). */
export function signatureOf(entry: AbiEntry): string {
  return `${entry.name}(${(entry.inputs ?? []).map((i) => i.type).join(',')})`;
}
