import { utils } from 'tronweb';
import type { HexAddress } from '../crypto/address';

const coder = new utils.ethersUtils.AbiCoder();
const { keccak256 } = utils.ethersUtils;

const selectors = new Map<string, string>();

/** The 4-byte selector of a function signature, as hex (remembered: every contract call names one). */
export function selector(signature: string): string {
  let found = selectors.get(signature);
  if (found === undefined) {
    found = keccak256(Buffer.from(signature, 'utf8')).slice(2, 10);
    if (selectors.size < 10_000) selectors.set(signature, found);
  }
  return found;
}

/** keccak256 of an event signature: topic 0 of its logs. */
export function eventTopic(signature: string): string {
  return keccak256(Buffer.from(signature, 'utf8')).slice(2);
}

// Static words (address, uintN, bool) are coded here, one 32-byte word each, as ethers codes them; a token
// transfer's arguments are nothing else, and ethers' general coder was the bulk of a simulation's CPU.
const STATIC = /^(address|bool|uint(8|16|32|64|128|256)?)$/;
const isStatic = (types: readonly string[]) => types.every((t) => STATIC.test(t));
const MAX_UINT256 = (1n << 256n) - 1n;

function wordOf(type: string, value: unknown): string {
  if (type === 'address') {
    const hex = String(value).replace(/^0x/, '').toLowerCase();
    if (!/^[0-9a-f]{40}$/.test(hex)) throw new Error(`bad address ${String(value)}`);
    return hex.padStart(64, '0');
  }
  const n = type === 'bool' ? (value ? 1n : 0n) : BigInt(value as bigint | number | string);
  if (n < 0n || n > MAX_UINT256) throw new Error(`value out of range for ${type}`);
  return n.toString(16).padStart(64, '0');
}

function valueOf(type: string, word: Buffer): unknown {
  const n = BigInt('0x' + word.toString('hex'));
  const bits = type === 'address' ? 160 : type === 'bool' ? 1 : Number(type.slice(4) || 256);
  // Dirty high bits make the ABI decoder (and a Solidity contract) refuse the call, as ethers does.
  if (n >> BigInt(bits) !== 0n) throw new Error(`value out of range for ${type}`);
  if (type === 'address') return '0x' + word.subarray(12).toString('hex');
  return type === 'bool' ? n === 1n : n;
}

export function encode(types: readonly string[], values: readonly unknown[]): Buffer {
  if (isStatic(types) && types.length === values.length) return Buffer.from(types.map((t, i) => wordOf(t, values[i])).join(''), 'hex');
  return Buffer.from(coder.encode(types, values).slice(2), 'hex');
}

export function decode(types: readonly string[], data: Buffer): unknown[] {
  if (isStatic(types)) {
    if (data.length < 32 * types.length) throw new Error('data too short');
    return types.map((t, i) => valueOf(t, data.subarray(32 * i, 32 * (i + 1))));
  }
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
