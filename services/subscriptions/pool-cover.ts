/**
 * Whether the supplier's stake can deliver one more plan day now: the same split the broadcaster makes
 * (planDelegation over every address's delegatable stake at the chain's ratio), read before the day is
 * charged, so a plan the pool cannot serve is paused `reserve_exhausted` without charging a day that would
 * only fail and be refunded. Stake of other orders signed but not landed yet is not subtracted: a day that
 * passes here can still fail at allocation, and that failed day pauses the plan as before.
 */
import { planDelegation, type Ratio } from '../chain/allocation';
import type { ChainReader } from '../chain/reads';
import { poolSigners } from '../chain/pool-keys';
import type { Config } from '../platform/config';

/** The supplier's stake addresses (the stand-in provider fills from the last pool key, as in chain/suppliers.ts). */
export function supplierAddresses(cfg: Config): string[] {
  const addresses = poolSigners(cfg).map((s) => s.address);
  return cfg.ORDER_SUPPLIER === 'provider' ? addresses.slice(-1) : addresses;
}

/** True when `amount` units of `resource` can be delegated from `addresses` now. */
export async function stakeCovers(
  reader: Pick<ChainReader, 'call'>, addresses: string[], resource: 'energy' | 'bandwidth', amount: number, maxSunPerPart: bigint | null,
): Promise<boolean> {
  const energy = resource === 'energy';
  const raw = await reader.call('full', 'getaccountresource', { address: addresses[0] });
  const ratio: Ratio = { limit: BigInt(energy ? raw.TotalEnergyLimit ?? 0 : raw.TotalNetLimit ?? 0), weight: BigInt(energy ? raw.TotalEnergyWeight ?? 0 : raw.TotalNetWeight ?? 0) };
  if (ratio.limit <= 0n || ratio.weight <= 0n) return false;
  const sources = await Promise.all(addresses.map(async (address) => {
    const size = await reader.call('full', 'getcandelegatedmaxsize', { owner_address: address, type: energy ? 1 : 0 });
    return { address, availableSun: BigInt(size.max_size ?? 0) };
  }));
  return planDelegation(amount, ratio, sources, maxSunPerPart) !== null;
}
