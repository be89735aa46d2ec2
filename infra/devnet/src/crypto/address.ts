import { createHash } from 'node:crypto';
import { utils } from 'tronweb';

/** A TRON address as java-tron prints it with visible=false: '41' + 20 bytes, lowercase hex. */
export type HexAddress = string;

const HEX_ADDRESS = /^41[0-9a-f]{40}$/;

export function isHexAddress(value: string): boolean {
  return HEX_ADDRESS.test(value);
}

// Both directions remembered: clients name the same few thousand addresses in read after read (base58 with
// visible), and a base58check decode (two SHA-256 and a bigint division per character) was most of a read's own work.
const base58Cache = new Map<HexAddress, string>();
const hexCache = new Map<string, HexAddress>();

/** Accepts the forms clients send ('41…' hex, 'T…' base58check, '0x…' 20-byte) or returns undefined. */
export function parseAddress(value: unknown): HexAddress | undefined {
  if (typeof value !== 'string' || value === '') return undefined;
  const known = hexCache.get(value);
  if (known !== undefined) return known;
  const lower = value.toLowerCase();
  if (isHexAddress(lower)) return lower;
  if (/^0x[0-9a-f]{40}$/.test(lower)) return '41' + lower.slice(2);
  if (value.startsWith('T') && value.length === 34) {
    try {
      const bytes = utils.crypto.decodeBase58Address(value);
      if (!bytes) return undefined;
      const hex = Buffer.from(bytes).toString('hex');
      if (!isHexAddress(hex)) return undefined;
      remember(hex, value);
      return hex;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

function remember(hex: HexAddress, base58: string): void {
  base58Cache.set(hex, base58);
  hexCache.set(base58, hex);
}

export function toBase58(address: HexAddress): string {
  let cached = base58Cache.get(address);
  if (cached === undefined) {
    cached = utils.crypto.getBase58CheckAddress([...Buffer.from(address, 'hex')]);
    remember(address, cached);
  }
  return cached;
}

export function sha256(data: Uint8Array): Buffer {
  return createHash('sha256').update(data).digest();
}
