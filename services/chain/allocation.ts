/**
 * Stake arithmetic of delegations (pure): how many whole staked TRX give a receiver N units of energy or
 * bandwidth at the chain's current ratio (TotalLimit / TotalWeight), and how an order is split across the
 * pool addresses that have delegatable stake.
 */
export const SUN_PER_TRX = 1_000_000n;

/** The chain's resource ratio as read when the order was allocated: Total*Limit and Total*Weight (whole TRX). */
export interface Ratio {
  limit: bigint;
  weight: bigint;
}

/** Units earned by `trx` whole staked TRX, truncated as java-tron computes it (in doubles). */
export function unitsFor(trx: bigint, r: Ratio): number {
  if (trx <= 0n || r.weight === 0n) return 0;
  return Math.floor(Number(trx) * (Number(r.limit) / Number(r.weight)));
}

/** Fewest whole TRX (at least 1) whose stake earns at least `amount` units. */
export function trxFor(amount: number, r: Ratio): bigint {
  if (r.limit <= 0n) throw new RangeError('the chain reports no resource limit');
  let trx = (BigInt(amount) * r.weight + r.limit - 1n) / r.limit;
  if (trx < 1n) trx = 1n;
  while (unitsFor(trx, r) < amount) trx += 1n;
  return trx;
}

export interface StakeSource {
  address: string;
  /** Delegatable stake (SUN) not yet promised to another order. */
  availableSun: bigint;
}

export interface DelegationPart {
  from: string;
  amount: number;
  sun: bigint;
}

/**
 * Fills `amount` units from the sources, largest first, each part at most `maxSunPerPart` of stake
 * (null: unbounded). Null when the pool cannot cover the order.
 */
export function planDelegation(amount: number, r: Ratio, sources: StakeSource[], maxSunPerPart: bigint | null = null): DelegationPart[] | null {
  const parts: DelegationPart[] = [];
  let remaining = amount;
  for (const source of [...sources].sort((a, b) => (b.availableSun > a.availableSun ? 1 : b.availableSun < a.availableSun ? -1 : 0))) {
    let available = source.availableSun / SUN_PER_TRX;
    while (remaining > 0 && available > 0n) {
      const cap = maxSunPerPart === null ? available : [available, maxSunPerPart / SUN_PER_TRX].reduce((a, b) => (a < b ? a : b));
      const need = trxFor(remaining, r);
      if (need <= cap) {
        parts.push({ from: source.address, amount: remaining, sun: need * SUN_PER_TRX });
        remaining = 0;
        break;
      }
      const units = unitsFor(cap, r);
      if (units <= 0) break;
      parts.push({ from: source.address, amount: units, sun: cap * SUN_PER_TRX });
      remaining -= units;
      available -= cap;
    }
    if (remaining === 0) break;
  }
  return remaining === 0 ? parts : null;
}

/** A delegation signed and stored for an order still being allocated, as the broadcaster sees it. */
export interface SignedDelegation {
  from: string;
  resource: string;
  sun: bigint;
  /** Chain ms past which (by head block time) it can never land. */
  expiration: number;
  /** In a block already (its stake is then out of what the chain reports as delegatable). */
  inBlock: boolean;
}

/**
 * Stake (SUN) promised by stored delegations that may still land, per `address:resource`: those not in a
 * block yet and not expired at `headTimestamp`. The chain's delegatable stake does not count them yet.
 */
export function inFlightSun(delegations: SignedDelegation[], headTimestamp: number): Map<string, bigint> {
  const out = new Map<string, bigint>();
  for (const d of delegations) {
    if (d.inBlock || headTimestamp > d.expiration) continue;
    const key = `${d.from}:${d.resource}`;
    out.set(key, (out.get(key) ?? 0n) + d.sun);
  }
  return out;
}

/** The sources less what is in flight from each address (never below zero). */
export function lessInFlight(sources: StakeSource[], resource: string, inFlight: Map<string, bigint>): StakeSource[] {
  return sources.map((s) => {
    const left = s.availableSun - (inFlight.get(`${s.address}:${resource}`) ?? 0n);
    return { address: s.address, availableSun: left > 0n ? left : 0n };
  });
}
