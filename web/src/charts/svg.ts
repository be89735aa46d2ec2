/**
 * Hand-drawn SVG charts for the stats page (no chart library, no CDN): bars of a daily series, the
 * weekday × hour heat map, and horizontal bars of top receivers. Each scales to its box (viewBox, width
 * 100%), so it fits 375 px screens; every mark carries a <title> with its exact value.
 */
import { axis, compact, heatShade, labelEvery } from './scale';

const NS = 'http://www.w3.org/2000/svg';

function s<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>, ...children: (SVGElement | string)[]): SVGElementTagNameMap[K] {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  for (const c of children) el.append(c);
  return el;
}

const title = (text: string) => s('title', {}, text);

/** Vertical bars, one per point, y axis from 0 with round ticks. */
export function barChart(points: { label: string; value: number; tip: string }[], opts: { testid: string; integer?: boolean }): SVGSVGElement {
  const W = 640, H = 220, left = 44, bottom = 24, top = 8;
  const plotW = W - left - 6, plotH = H - bottom - top;
  const { top: max, ticks } = axis(Math.max(0, ...points.map((p) => p.value)), opts.integer ?? true);
  const y = (v: number) => top + plotH - (v / max) * plotH;
  const slot = plotW / Math.max(1, points.length);
  const show = labelEvery(points.length, 8);
  const svg = s('svg', { viewBox: `0 0 ${W} ${H}`, class: 'chart', role: 'img', 'data-testid': opts.testid });
  for (const t of ticks) {
    svg.append(s('line', { x1: left, x2: W - 6, y1: y(t), y2: y(t), class: 'grid-line' }),
      s('text', { x: left - 6, y: y(t) + 4, class: 'axis', 'text-anchor': 'end' }, compact(t)));
  }
  points.forEach((p, i) => {
    const x = left + i * slot;
    const bar = s('rect', { x: x + slot * 0.15, y: y(p.value), width: Math.max(1, slot * 0.7), height: Math.max(0, top + plotH - y(p.value)), class: 'bar', 'data-value': p.value }, title(p.tip));
    svg.append(bar);
    if (show(i)) svg.append(s('text', { x: x + slot / 2, y: H - 6, class: 'axis', 'text-anchor': 'middle' }, p.label));
  });
  return svg;
}

const WEEKDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];

/** 7 rows (Monday first) × 24 hours; the darker the cell, the more orders started in that hour. */
export function heatMap(rows: number[][], testid: string): SVGSVGElement {
  const cell = 24, left = 36, topPad = 16;
  const W = left + 24 * cell + 2, H = topPad + 7 * cell + 2;
  const max = Math.max(0, ...rows.flat());
  const svg = s('svg', { viewBox: `0 0 ${W} ${H}`, class: 'chart heat', role: 'img', 'data-testid': testid });
  for (let hr = 0; hr < 24; hr += 3) svg.append(s('text', { x: left + hr * cell + cell / 2, y: 11, class: 'axis', 'text-anchor': 'middle' }, String(hr).padStart(2, '0')));
  rows.forEach((row, d) => {
    svg.append(s('text', { x: left - 6, y: topPad + d * cell + cell * 0.65, class: 'axis', 'text-anchor': 'end' }, WEEKDAYS[d]));
    row.forEach((count, hr) => {
      svg.append(s('rect', {
        x: left + hr * cell + 1, y: topPad + d * cell + 1, width: cell - 2, height: cell - 2, rx: 3,
        class: count > 0 ? 'heat-cell' : 'heat-cell empty', 'fill-opacity': count > 0 ? heatShade(count, max) : 1, 'data-count': count,
      }, title(`${WEEKDAYS[d]} ${String(hr).padStart(2, '0')}:00–${String(hr).padStart(2, '0')}:59 · ${count} order${count === 1 ? '' : 's'}`)));
    });
  });
  return svg;
}

/** One labelled horizontal bar per row, longest first as given; the value is printed at the bar's end. */
export function hbarChart(rows: { label: string; value: number; text: string; tip: string }[], testid: string): SVGSVGElement {
  const W = 480, rowH = 26, label = 130, valueRoom = 120;
  const H = Math.max(1, rows.length) * rowH;
  const max = Math.max(1, ...rows.map((r) => r.value));
  const svg = s('svg', { viewBox: `0 0 ${W} ${H}`, class: 'chart', role: 'img', 'data-testid': testid });
  rows.forEach((r, i) => {
    const y = i * rowH;
    const w = Math.max(1, ((W - label - valueRoom) * r.value) / max);
    svg.append(
      s('text', { x: 0, y: y + rowH * 0.65, class: 'axis mono' }, r.label),
      s('rect', { x: label, y: y + 4, width: w, height: rowH - 8, rx: 3, class: 'bar', 'data-value': r.value }, title(r.tip)),
      s('text', { x: label + w + 6, y: y + rowH * 0.65, class: 'axis' }, r.text));
  });
  return svg;
}
