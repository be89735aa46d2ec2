/** Chart arithmetic without the DOM (tested in test/unit/web-charts.test.ts): axis ticks and heat shades. */

/** The smallest 1, 2 or 5 × 10^k that is at least `x` (x > 0). */
export function niceStep(x: number): number {
  const p = 10 ** Math.floor(Math.log10(x));
  for (const m of [1, 2, 5, 10]) if (m * p >= x - p * 1e-9) return m * p;
  return 10 * p;
}

/** Axis from 0: a round top at or above `max` and 2 to 5 evenly spaced round ticks (`integer`: whole-number steps). */
export function axis(max: number, integer = true): { top: number; ticks: number[] } {
  if (!(max > 0)) return { top: 1, ticks: [0, 1] };
  let step = niceStep(max / 4);
  if (integer) step = Math.max(1, Math.round(step));
  const top = Math.ceil(max / step - 1e-9) * step;
  const ticks: number[] = [];
  for (let v = 0; v <= top + step / 2; v += step) ticks.push(Math.round(v * 1e6) / 1e6);
  return { top, ticks };
}

/** Opacity of a heat-map cell: 0 for none, else from 0.15 (a single order) up to 1 (the busiest hour). */
export function heatShade(value: number, max: number): number {
  if (value <= 0 || max <= 0) return 0;
  return Math.round((0.15 + (0.85 * value) / max) * 1000) / 1000;
}

/** Which of `n` x-axis labels to print so at most `room` show, evenly spaced, the last always included. */
export function labelEvery(n: number, room: number): (i: number) => boolean {
  const every = Math.max(1, Math.ceil(n / Math.max(1, room)));
  return (i) => (n - 1 - i) % every === 0;
}

/** Short axis numbers: 1 200 → 1.2k, 3 500 000 → 3.5M. */
export function compact(v: number): string {
  const abs = Math.abs(v);
  const [d, s] = abs >= 1e9 ? [1e9, 'G'] : abs >= 1e6 ? [1e6, 'M'] : abs >= 1e3 ? [1e3, 'k'] : [1, ''];
  return `${Math.round((v / d) * 10) / 10}${s}`;
}
