/**
 * ECDSA over secp256k1 for the pool's transactions, in libsecp256k1 (the `secp256k1` package's native
 * binding, shipped prebuilt in the package; the package itself falls back to its pure-JS elliptic build
 * where the binding cannot load). RFC 6979 nonces and low-S, as TronWeb's signer (noble) makes them, so
 * each signature is byte-identical to TronWeb's `utils.crypto.ECKeySign` (test/unit/signing.test.ts):
 * only the cost changes (figures in bench/README.md).
 */
import { ecdsaRecover, ecdsaSign } from 'secp256k1';

const hex = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');

/** r ‖ s ‖ v (v = 27 + recovery id), hex, in TronWeb's spelling (r and s lower case, v as two upper-case digits). */
export function signDigest(privateKeyHex: string, digestHex: string): string {
  const { signature, recid } = ecdsaSign(Buffer.from(digestHex, 'hex'), Buffer.from(privateKeyHex, 'hex'));
  return hex(signature) + (recid + 27).toString(16).toUpperCase().padStart(2, '0');
}

/** The uncompressed public key (65 bytes, 04 ‖ x ‖ y) that made `signatureHex` (r ‖ s ‖ v) over the digest. */
export function recoverPublicKey(digestHex: string, signatureHex: string): Buffer {
  const sig = Buffer.from(signatureHex, 'hex');
  const recid = sig[64] >= 27 ? sig[64] - 27 : sig[64];
  return Buffer.from(ecdsaRecover(sig.subarray(0, 64), recid, Buffer.from(digestHex, 'hex'), false));
}
