import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { utils } from 'tronweb';
import type { HexAddress } from './address';

export interface SigCheck {
  readonly rawBytes: Uint8Array;
  readonly txid: string;
  readonly signature: string;
  readonly owner: HexAddress;
}

/** The address that produced the signature, or why it could not be read. */
export type SigResult = { readonly signer: HexAddress } | { readonly error: string };

function addressOfPublicKey(uncompressed: Buffer): HexAddress {
  return '41' + utils.ethersUtils.keccak256(uncompressed.subarray(1)).slice(-40);
}

function keyObject(uncompressed: Buffer): KeyObject {
  return createPublicKey({
    key: { kty: 'EC', crv: 'secp256k1', x: uncompressed.subarray(1, 33).toString('base64url'), y: uncompressed.subarray(33).toString('base64url') },
    format: 'jwk',
  });
}

/**
 * Finds who signed a txid. Public-key recovery in JavaScript is slow (~2 ms here), so once an
 * address's key is known the check becomes an OpenSSL ECDSA verify against it (~0.4 ms): hashing
 * the raw bytes with SHA-256 yields exactly the txid the signature covers. Only a signature that
 * does not verify against the owner's key goes through recovery, to name the actual signer.
 */
export class SignatureVerifier {
  private readonly keys = new Map<HexAddress, KeyObject>();

  check(item: SigCheck): SigResult {
    const sig = Buffer.from(item.signature, 'hex');
    const known = this.keys.get(item.owner);
    if (known && verify('sha256', item.rawBytes, { key: known, dsaEncoding: 'ieee-p1363' }, sig.subarray(0, 64))) {
      return { signer: item.owner };
    }
    try {
      const v = sig[64] >= 27 ? sig[64] : sig[64] + 27;
      const publicKey = Buffer.from(
        utils.ethersUtils.SigningKey.recoverPublicKey('0x' + item.txid, {
          r: '0x' + sig.subarray(0, 32).toString('hex'),
          s: '0x' + sig.subarray(32, 64).toString('hex'),
          v,
        }).slice(2),
        'hex',
      );
      const signer = addressOfPublicKey(publicKey);
      if (signer === item.owner && !known) this.keys.set(signer, keyObject(publicKey));
      return { signer };
    } catch (err) {
      return { error: err instanceof Error ? err.message : String(err) };
    }
  }

  /** Keys the node already knows (genesis accounts) skip recovery from the first transaction. */
  remember(publicKey: Buffer): void {
    this.keys.set(addressOfPublicKey(publicKey), keyObject(publicKey));
  }
}
