import { createHash } from 'node:crypto';
import { utils } from 'tronweb';

/** A TRON address as java-tron prints it with visible=false: '41' + 20 bytes, lowercase hex. */
export type HexAddress = string;

const HEX_ADDRESS = /^41[0-9a-f]{40}$/;

export function isHexAddress(value: string): boolean {
  return HEX_ADDRESS.test(value);
}

/** Accepts the forms clients send ('41…' hex, 'T…' base58check, '0x…' 20-byte) or returns undefined. */
export function parseAddress(value: unknown): HexAddress | undefined {
  if (typeof value !== 'string' || value === '') return undefined;
  const lower = value.toLowerCase();
  if (isHexAddress(lower)) return lower;
  if (/^0x[0-9a-f]{40}$/.test(lower)) return '41' + lower.slice(2);
  if (value.startsWith('T') && value.length === 34) {
    try {
      const bytes = utils.crypto.decodeBase58Address(value);
      if (!bytes) return undefined;
      const hex = Buffer.from(bytes).toString('hex');
      return isHexAddress(hex) ? hex : undefined;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

const base58Cache = new Map<HexAddress, string>();

export function toBase58(address: HexAddress): string {
  let cached = base58Cache.get(address);
  if (cached === undefined) {
    cached = utils.crypto.getBase58CheckAddress([...Buffer.from(address, 'hex')]);
    base58Cache.set(address, cached);
  }
  return cached;
}

export function sha256(data: Uint8Array): Buffer {
  return createHash('sha256').update(data).digest();
}
