/**
 * Stake-pool signing keys: POOL_PRIVATE_KEYS from configuration, or off mainnet the devnet genesis pool
 * derived from DEVNET_SEED (private key of pool wallet i = SHA-256 of "<seed>:pool:<i>").
 */
import { createHash } from 'node:crypto';
import { TronWeb } from 'tronweb';
import type { Config } from '../platform/config';

export interface Signer {
  address: string;
  privateKey: string;
}

export function signerOf(privateKey: string): Signer {
  const address = TronWeb.address.fromPrivateKey(privateKey);
  if (!address) throw new Error('not a valid private key');
  return { address, privateKey: privateKey.toLowerCase() };
}

export function devnetKey(seed: string, label: string): string {
  return createHash('sha256').update(`${seed}:${label}`).digest('hex');
}

export function poolSigners(cfg: Pick<Config, 'NETWORK' | 'POOL_PRIVATE_KEYS' | 'DEVNET_SEED' | 'DEVNET_POOL'>): Signer[] {
  if (cfg.POOL_PRIVATE_KEYS) return cfg.POOL_PRIVATE_KEYS.split(',').map(signerOf);
  if (cfg.NETWORK === 'mainnet') throw new Error('POOL_PRIVATE_KEYS is required on mainnet');
  return Array.from({ length: cfg.DEVNET_POOL }, (_, i) => signerOf(devnetKey(cfg.DEVNET_SEED, `pool:${i}`)));
}
