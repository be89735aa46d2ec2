import { TronWeb, utils } from 'tronweb';
import { parseAddress, type HexAddress } from './address';

export interface KeyPair {
  readonly address: HexAddress;
  readonly privateKey: string;
}

/** TRON address of a private key (keccak of the uncompressed public key, 0x41 prefix). */
export function addressOfKey(privateKey: string): HexAddress {
  const base58 = TronWeb.address.fromPrivateKey(privateKey);
  const hex = typeof base58 === 'string' ? parseAddress(base58) : undefined;
  if (!hex) throw new Error('invalid private key');
  return hex;
}

/** 65-byte r‖s‖v signature over a txid, the form TronWeb and java-tron exchange. */
export function signTxid(txid: string, privateKey: string): string {
  return utils.crypto.ECKeySign(Buffer.from(txid, 'hex'), Buffer.from(privateKey, 'hex')).toLowerCase();
}

/** Uncompressed (65-byte, 0x04-prefixed) public key of a private key. */
export function publicKeyOf(privateKey: string): Buffer {
  const key = new utils.ethersUtils.SigningKey('0x' + privateKey);
  return Buffer.from(key.publicKey.slice(2), 'hex');
}
