/** The stats charts' arithmetic: round axes that cover the data, heat shades, which x labels print. */
import fc from 'fast-check';
import { axis, compact, heatShade, labelEvery, niceStep } from '../../web/src/charts/scale';

test('round steps and axes', () => {
  expect([0.3, 1, 1.1, 3, 7, 40, 250].map(niceStep)).toEqual([0.5, 1, 2, 5, 10, 50, 500]);
  expect(axis(7)).toEqual({ top: 8, ticks: [0, 2, 4, 6, 8] });
  expect(axis(1)).toEqual({ top: 1, ticks: [0, 1] });
  expect(axis(0)).toEqual({ top: 1, ticks: [0, 1] });
  expect(axis(130_000)).toEqual({ top: 150_000, ticks: [0, 50_000, 100_000, 150_000] });
  expect(axis(0.7, false)).toEqual({ top: 0.8, ticks: [0, 0.2, 0.4, 0.6, 0.8] });
});

test('an axis always covers the largest value with 2 to 6 evenly spaced ticks from 0', () => {
  fc.assert(fc.property(fc.integer({ min: 1, max: 10 ** 12 }), fc.boolean(), (max, integer) => {
    const { top, ticks } = axis(max, integer);
    expect(top).toBeGreaterThanOrEqual(max);
    expect(ticks[0]).toBe(0);
    expect(ticks[ticks.length - 1]).toBe(top);
    expect(ticks.length).toBeGreaterThanOrEqual(2);
    expect(ticks.length).toBeLessThanOrEqual(6);
    const step = ticks[1] - ticks[0];
    ticks.forEach((t, i) => expect(Math.abs(t - i * step)).toBeLessThan(step * 1e-9 + 1e-9));
  }));
});

test('heat shades: none is blank, one order is visible, the busiest hour is full', () => {
  expect(heatShade(0, 10)).toBe(0);
  expect(heatShade(1, 1)).toBe(1);
  expect(heatShade(1, 100)).toBe(0.159);
  expect(heatShade(5, 0)).toBe(0);
  fc.assert(fc.property(fc.integer({ min: 1, max: 1000 }), fc.integer({ min: 1, max: 1000 }), (a, b) => {
    const [lo, hi] = a <= b ? [a, b] : [b, a];
    expect(heatShade(lo, hi)).toBeLessThanOrEqual(heatShade(hi, hi));
    expect(heatShade(lo, hi)).toBeGreaterThanOrEqual(0.15);
  }));
});

test('x labels: at most the room given, the last day always labelled', () => {
  fc.assert(fc.property(fc.integer({ min: 1, max: 400 }), fc.integer({ min: 1, max: 20 }), (n, room) => {
    const show = labelEvery(n, room);
    const shown = Array.from({ length: n }, (_, i) => i).filter(show);
    expect(shown.length).toBeLessThanOrEqual(room);
    expect(shown).toContain(n - 1);
  }));
  expect([0, 999, 1200, 3_500_000, 2_000_000_000].map(compact)).toEqual(['0', '999', '1.2k', '3.5M', '2G']);
});
