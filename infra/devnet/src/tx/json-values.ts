import { parseAddress, type HexAddress } from '../crypto/address';

/** A request or transaction JSON that cannot be read; java-tron answers these with {"Error": …}. */
export class FormatError extends Error {}

/** int64 fields arrive as JSON numbers or, from careful clients, as decimal strings. */
export function readInt64(value: unknown, name: string): bigint {
  if (value === undefined || value === null || value === '') return 0n;
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number' && Number.isInteger(value)) return BigInt(value);
  if (typeof value === 'string' && /^-?\d+$/.test(value.trim())) return BigInt(value.trim());
  throw new FormatError(`${name} must be an integer`);
}

export function readBool(value: unknown): boolean {
  return value === true || value === 'true';
}

export function readAddress(value: unknown, name: string): HexAddress {
  const address = parseAddress(value);
  if (!address) throw new FormatError(`Invalid ${name}`);
  return address;
}

export function readHex(value: unknown, name: string): Buffer {
  if (value === undefined || value === null || value === '') return Buffer.alloc(0);
  if (typeof value !== 'string' || !/^(0x)?([0-9a-fA-F]{2})*$/.test(value)) throw new FormatError(`${name} must be hex`);
  return Buffer.from(value.replace(/^0x/, ''), 'hex');
}
