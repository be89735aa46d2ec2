/** TRON address checks and personal-sign recovery (the latter through TronWeb's own implementation). */
import { createHash } from 'node:crypto';
import { TronWeb, Trx } from 'tronweb';

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const DIGIT = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i += 1) DIGIT[ALPHABET.charCodeAt(i)] = i;

/** The 25 bytes a 34-character address decodes to, or null (a character outside base58, or more than 25 bytes). */
function decode25(text: string): Buffer | null {
  const out = Buffer.alloc(25);
  for (let k = 0; k < text.length; k += 1) {
    const code = text.charCodeAt(k);
    let carry = code < 128 ? DIGIT[code] : -1;
    if (carry < 0) return null;
    for (let j = 24; j >= 0; j -= 1) {
      carry += out[j] * 58;
      out[j] = carry & 0xff;
      carry >>= 8;
    }
    if (carry !== 0) return null;
  }
  return out;
}

/**
 * Base58Check with a valid checksum, mainnet-style `T` prefix: the same rule as TronWeb's isAddress (34
 * characters, 25 bytes, version byte 0x41, checksum = first 4 bytes of sha256(sha256(21 bytes))), with
 * node:crypto's sha256 and a byte-array base58 decode; TronWeb's pure-JS one was dear per address and
 * per batch (figures in bench/README.md, "Figures formerly quoted in code comments";
 * test/unit/address.test.ts holds the two to the same answers).
 */
export function isTronAddress(value: unknown): value is string {
  if (typeof value !== 'string' || value.length !== 34 || value.charCodeAt(0) !== 84 /* T */) return false;
  if (valid.has(value)) return true;
  const bytes = decode25(value);
  if (bytes === null || bytes[0] !== 0x41) return false;
  const body = bytes.subarray(0, 21);
  const check = createHash('sha256').update(createHash('sha256').update(body).digest()).digest();
  if (check.readUInt32BE(0) !== bytes.readUInt32BE(21)) return false;
  if (valid.size >= MAX_KEPT) valid.clear();
  valid.add(value);
  return true;
}

/**
 * Addresses that passed: a checksum, once right, is right for good, and a bot orders to the same receivers
 * again and again (the decode and two hashes were a visible share of an API process's busy time per order:
 * bench/README.md, "Figures formerly quoted in code comments"). Bounded;
 * only valid ones are kept, so input cannot fill it with junk that then answers faster.
 */
const valid = new Set<string>();
const MAX_KEPT = 10_000;

/** The address that signed `message` (TIP-191 personal sign, signMessageV2), or null when unreadable. */
export function recoverSigner(message: string, signature: string): string | null {
  const hex = signature.startsWith('0x') || signature.startsWith('0X') ? signature.slice(2) : signature;
  if (!/^[0-9a-fA-F]{130}$/.test(hex)) return null;
  try {
    return Trx.verifyMessageV2(message, `0x${hex}`);
  } catch {
    return null;
  }
}

/** Base58 address from an ethers-style `0x` + 20-byte hex address. */
export function tronAddressFromEvmHex(evm: string): string {
  return TronWeb.address.fromHex(`41${evm.slice(2)}`);
}

/** A base58 address from its 41-prefixed hex form (as the node's JSON writes owners and receivers). */
export function tronAddressFromHex(hex41: string): string {
  return TronWeb.address.fromHex(hex41);
}

/** The 41-prefixed hex form of a base58 address. */
export function tronAddressToHex(address: string): string {
  return TronWeb.address.toHex(address);
}
