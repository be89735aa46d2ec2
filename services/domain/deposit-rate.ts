/**
 * The USDT rate a deposit is credited at, as pure functions (issue 31): a block-weighted mean of the pool
 * price over the last `window` blocks, so whoever moves the pool for one block moves the credit rate by a
 * 1/window share of that move at most, and a band around a configured reference outside of which nothing
 * is credited automatically (held for review). docs/security.md, "Deposit rate".
 */

export interface RateSample {
  /** Solidified block the pool price was read at. */
  block: number;
  /** SUN per 1 USDT before the spread. */
  rateSun: bigint;
}

/**
 * Mean of the samples over blocks (head - window, head], each sample standing for the blocks from its own
 * to the next sample's; null until the samples cover the whole window (the first sample at or before its
 * start). Samples are in increasing block order. A window of 1 is the price at the newest sample.
 */
export function blockWeightedRate(samples: readonly RateSample[], head: number, window: number): bigint | null {
  const start = head - window + 1;
  if (samples.length === 0 || samples[0].block > start) return null;
  let sum = 0n;
  for (let i = 0; i < samples.length; i++) {
    const from = Math.max(samples[i].block, start);
    const to = i + 1 < samples.length ? samples[i + 1].block : head + 1;
    if (to > from) sum += samples[i].rateSun * BigInt(to - from);
  }
  return sum / BigInt(window);
}

/** The samples still needed for the next window: those inside it and the one just before its start. */
export function keptSamples(samples: readonly RateSample[], head: number, window: number): RateSample[] {
  const start = head - window + 1;
  let first = 0;
  while (first + 1 < samples.length && samples[first + 1].block <= start) first++;
  return samples.slice(first);
}

/** Whether `rateSun` is within `bandBps` of the reference; no reference configured means no band. */
export function withinBand(rateSun: bigint, referenceSun: bigint | null, bandBps: number): boolean {
  if (referenceSun === null) return true;
  const gap = rateSun > referenceSun ? rateSun - referenceSun : referenceSun - rateSun;
  return gap * 10_000n <= referenceSun * BigInt(bandBps);
}
