/** TRON address checks and personal-sign recovery, through TronWeb's own implementation. */
import { TronWeb, Trx } from 'tronweb';

/** Base58Check with a valid checksum, mainnet-style `T` prefix. */
export function isTronAddress(value: unknown): value is string {
  return typeof value === 'string' && /^T[1-9A-HJ-NP-Za-km-z]{33}$/.test(value) && TronWeb.isAddress(value);
}

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
