/**
 * The transfer desk's signing key (contract.md section 12): DESK_PRIVATE_KEY from configuration, or off
 * mainnet the devnet desk key derived from DEVNET_SEED as the pool keys are (pool-keys.ts, label `desk`).
 * Only the desk returner reads it (platform/role-secrets.ts); every other role knows the desk by its
 * public DESK_ADDRESS.
 */
import type { Config } from '../platform/config';
import { devnetKey, signerOf, type Signer } from './pool-keys';

export function deskSigner(cfg: Pick<Config, 'NETWORK' | 'DESK_PRIVATE_KEY' | 'DESK_ADDRESS' | 'DEVNET_SEED'>): Signer {
  if (!cfg.DESK_PRIVATE_KEY && cfg.NETWORK === 'mainnet') throw new Error('DESK_PRIVATE_KEY is required on mainnet for the desk returner');
  const signer = signerOf(cfg.DESK_PRIVATE_KEY ?? devnetKey(cfg.DEVNET_SEED, 'desk'));
  if (cfg.DESK_ADDRESS && signer.address !== cfg.DESK_ADDRESS) {
    throw new Error(`the desk key signs for ${signer.address}, not DESK_ADDRESS ${cfg.DESK_ADDRESS}`);
  }
  return signer;
}
