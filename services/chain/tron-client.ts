/**
 * The one TronWeb factory. Only services/chain/ imports TronWeb for chain access and knows
 * TRON_FULL_HOST: the devnet locally and in tests, a real full node on Nile and mainnet.
 */
import { TronWeb, providers } from 'tronweb';
import type { Config } from '../platform/config';

export type { TronWeb };

/** Per-call HTTP timeout: a slow node counts as an unavailable one (ChainUnavailable), never a hung role. */
export const CHAIN_TIMEOUT_MS = 10_000;

export function createTronWeb(cfg: Pick<Config, 'TRON_FULL_HOST'>, privateKey?: string): TronWeb {
  const host = cfg.TRON_FULL_HOST.replace(/\/+$/, '');
  const node = () => new providers.HttpProvider(host, CHAIN_TIMEOUT_MS);
  return new TronWeb({ fullNode: node(), solidityNode: node(), eventServer: node(), ...(privateKey ? { privateKey } : {}) });
}
