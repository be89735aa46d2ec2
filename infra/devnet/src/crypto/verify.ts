import { createHash } from 'node:crypto';
import { ecdsaRecover, ecdsaVerify, signatureNormalize } from 'secp256k1';
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

/** An r ‖ s signature over the digest by `publicKey`, high S accepted as low S. */
function verifies(rs: Buffer, digest: Buffer, publicKey: Buffer): boolean {
  try {
    return ecdsaVerify(signatureNormalize(Buffer.from(rs)), digest, publicKey);
  } catch {
    return false;
  }
}

function addressOfPublicKey(uncompressed: Buffer): HexAddress {
  return '41' + utils.ethersUtils.keccak256(uncompressed.subarray(1)).slice(-40);
}

/**
 * Finds who signed a txid. Once an address's public key is known, the check is one verify against it in
 * libsecp256k1 (the `secp256k1` package's native binding) over the SHA-256 of the raw bytes, which is what the
 * signature covers, the signature first brought to low S as java-tron's recovery accepts
 * either. Only a signature that does not verify against the owner's key goes through recovery, to name
 * the actual signer. Figures: bench/README.md.
 */
export class SignatureVerifier {
  private readonly keys = new Map<HexAddress, Buffer>();

  check(item: SigCheck): SigResult {
    const sig = Buffer.from(item.signature, 'hex');
    const known = this.keys.get(item.owner);
    if (known && sig.length === 65 && verifies(sig.subarray(0, 64), createHash('sha256').update(item.rawBytes).digest(), known)) return { signer: item.owner };
    try {
      if (sig.length !== 65) throw new Error(`a signature is 65 bytes, not ${sig.length}`);
      const recid = sig[64] >= 27 ? sig[64] - 27 : sig[64];
      const publicKey = Buffer.from(ecdsaRecover(sig.subarray(0, 64), recid, Buffer.from(item.txid, 'hex'), false));
      const signer = addressOfPublicKey(publicKey);
      if (signer === item.owner && !known) this.keys.set(signer, publicKey);
      return { signer };
    } catch (err) {
      return { error: err instanceof Error ? err.message : String(err) };
    }
  }

  /** Keys the node already knows (genesis accounts) skip recovery from the first transaction. */
  remember(publicKey: Buffer): void {
    this.keys.set(addressOfPublicKey(publicKey), publicKey);
  }
}
