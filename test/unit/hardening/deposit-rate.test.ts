/** The deposit rate's pure parts (issue 31, item 5): block-weighted mean over a window, and the band. */
import { blockWeightedRate, keptSamples, withinBand } from '../../../services/domain/deposit-rate';

const s = (block: number, rateSun: bigint) => ({ block, rateSun });

describe('blockWeightedRate', () => {
  it('is null until the samples cover the whole window', () => {
    expect(blockWeightedRate([], 10, 5)).toBeNull();
    expect(blockWeightedRate([s(7, 4_000_000n)], 10, 5)).toBeNull();
    expect(blockWeightedRate([s(6, 4_000_000n)], 10, 5)).toBe(4_000_000n);
  });

  it('a price held for one block moves the rate by a window\'s share of the move', () => {
    const samples = [s(1, 4_000_000n), s(10, 40_000_000n)];
    expect(blockWeightedRate(samples, 10, 5)).toBe((4n * 4_000_000n + 40_000_000n) / 5n);
    expect(blockWeightedRate(samples, 10, 1)).toBe(40_000_000n);
  });

  it('weights each sample by the blocks until the next one', () => {
    const samples = [s(0, 1_000n), s(3, 2_000n), s(4, 10_000n)];
    // window (0, 5]: blocks 1,2 at 1,000; 3 at 2,000; 4,5 at 10,000
    expect(blockWeightedRate(samples, 5, 5)).toBe((2n * 1_000n + 2_000n + 2n * 10_000n) / 5n);
  });
});

it('keptSamples keeps the window and the sample just before it', () => {
  const samples = [s(1, 1n), s(2, 2n), s(6, 6n), s(9, 9n)];
  expect(keptSamples(samples, 10, 5)).toEqual([s(6, 6n), s(9, 9n)]);
  expect(keptSamples(samples, 7, 5)).toEqual([s(2, 2n), s(6, 6n)].concat([s(9, 9n)]));
  expect(blockWeightedRate(keptSamples(samples, 10, 5), 10, 5)).toBe(blockWeightedRate(samples, 10, 5));
});

it('withinBand: inside and on the edge pass, past it fails, no reference passes', () => {
  expect(withinBand(4_400_000n, 4_000_000n, 1_000)).toBe(true);
  expect(withinBand(3_600_000n, 4_000_000n, 1_000)).toBe(true);
  expect(withinBand(4_400_001n, 4_000_000n, 1_000)).toBe(false);
  expect(withinBand(8_000_000n, 4_000_000n, 1_000)).toBe(false);
  expect(withinBand(8_000_000n, null, 1_000)).toBe(true);
});
