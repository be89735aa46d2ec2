/**
 * What of an order's stake is still on chain (pure). The chain says how much a pool address delegates to
 * the receiver; other orders that stay hold part of it; the rest, up to the order's own parts, is the
 * order's to take back. An undelegation is signed for that, never for more (the chain would refuse it:
 * "delegated Resource does not exist" / insufficient balance), and nothing when nothing is left.
 */
export interface StakePart {
  from: string;
  sun: bigint;
}

/**
 * `own`: the order's parts (address, stake) to take back; `onChain(from)`: delegated by `from` to the
 * receiver now; `others(from)`: held there by orders that stay. Returns the parts capped at what is left,
 * dropping the empty ones.
 */
export function stakeLeft(own: StakePart[], onChain: (from: string) => bigint, others: (from: string) => bigint): StakePart[] {
  const left = new Map<string, bigint>();
  const out: StakePart[] = [];
  for (const part of own) {
    if (!left.has(part.from)) {
      const free = onChain(part.from) - others(part.from);
      left.set(part.from, free > 0n ? free : 0n);
    }
    const available = left.get(part.from) as bigint;
    const take = part.sun < available ? part.sun : available;
    if (take <= 0n) continue;
    out.push({ from: part.from, sun: take });
    left.set(part.from, available - take);
  }
  return out;
}
