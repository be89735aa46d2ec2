/**
 * Deposit addresses derived from an extended public key (BIP-32/44, TRON coin type 195): the xpub sits at
 * m/44'/195'/0', the address of index i at m/44'/195'/0'/0/i. Only public keys are involved.
 */
import { utils } from 'tronweb';
import { tronAddressFromEvmHex } from './address';

const { ethersHDNodeWallet } = utils.ethersUtils;

const external = new Map<string, ReturnType<typeof ethersHDNodeWallet.fromExtendedKey>>();

export function depositAddressAt(xpub: string, index: number): string {
  if (!Number.isInteger(index) || index < 0 || index >= 2 ** 31) throw new Error(`bad derivation index ${index}`);
  let chain = external.get(xpub);
  if (!chain) {
    const node = ethersHDNodeWallet.fromExtendedKey(xpub);
    if ('privateKey' in node && (node as { privateKey?: string }).privateKey) {
      throw new Error('DEPOSIT_XPUB must be an extended PUBLIC key');
    }
    chain = node.deriveChild(0);
    external.set(xpub, chain);
  }
  return tronAddressFromEvmHex(chain.deriveChild(index).address);
}
