/**
 * The benchmarks' figures, as pure functions: nearest-rank percentiles and medians of timings.
 */

/** Ascending copy of `xs` (numbers, not the default string order). */
export const sorted = (xs: readonly number[]): number[] => [...xs].sort((a, b) => a - b);

/**
 * The p-th percentile (0..100) of an ascending list: the element at floor(p% of its length), the last one
 * for p = 100; NaN for an empty list.
 */
export function percentile(ascending: readonly number[], p: number): number {
  if (ascending.length === 0) return NaN;
  return ascending[Math.min(ascending.length - 1, Math.floor((p / 100) * ascending.length))];
}

/** The median of `xs` in any order (the upper one of an even count); NaN for none. */
export const median = (xs: readonly number[]): number => percentile(sorted(xs), 50);
