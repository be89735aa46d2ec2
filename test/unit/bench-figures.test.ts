/** bench/figures.ts: the percentile and median every benchmark prints. */
import { median, percentile, sorted } from '../../bench/figures';

test('nearest-rank percentiles of an ascending list', () => {
  const xs = Array.from({ length: 200 }, (_, i) => i + 1);
  expect(percentile(xs, 50)).toBe(101);
  expect(percentile(xs, 99)).toBe(199);
  expect(percentile(xs, 100)).toBe(200);
  expect(percentile(xs, 0)).toBe(1);
  expect(percentile([7], 99)).toBe(7);
  expect(percentile([], 50)).toBeNaN();
});

test('median of any order, upper of an even count; sorted is numeric and a copy', () => {
  const xs = [10, 2, 33, 4];
  expect(median(xs)).toBe(10);
  expect(median([3, 1, 2])).toBe(2);
  expect(median([])).toBeNaN();
  expect(sorted(xs)).toEqual([2, 4, 10, 33]);
  expect(xs).toEqual([10, 2, 33, 4]);
});
