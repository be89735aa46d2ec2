/**
 * Receiver activation for order pricing, read from the chain. A TRON account, once activated, stays
 * activated, so a positive answer is kept (bounded, per process) and the chain is asked again only about
 * receivers not yet seen active. A negative answer is never kept: the activation fee depends on it.
 */
import { ChainUnavailable } from '../chain/errors';
import type { ChainReader } from '../chain/reads';
import { ApiError } from './errors';

const MAX_KEPT = 100_000;

export function receiverActivation(chain: Pick<ChainReader, 'account'>): (address: string) => Promise<boolean> {
  const active = new Set<string>();
  return async (address) => {
    if (active.has(address)) return true;
    let exists: boolean;
    try {
      exists = (await chain.account(address)).exists;
    } catch (err) {
      if (err instanceof ChainUnavailable) throw new ApiError('chain_unavailable');
      throw err;
    }
    if (exists) {
      if (active.size >= MAX_KEPT) active.clear();
      active.add(address);
    }
    return exists;
  };
}
