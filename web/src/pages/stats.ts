/**
 * Stats (GET /v1/account/stats): totals, the daily series as bars (orders, energy or spend), the
 * weekday × hour heat map, and the top receivers, for the last 7 to 365 days in this browser's time zone.
 */
import { http, ok, query, type Schemas } from '../api';
import { h, put } from '../dom';
import { num, short, trx } from '../format';
import { barChart, heatMap, hbarChart } from '../charts/svg';
import { compact } from '../charts/scale';
import { errorText, notice, section, stat } from '../ui';
import type { Page } from '../page';

type Stats = Schemas['AccountStats'];
type StatsDay = Stats['series'][number];

const RANGES = [7, 30, 90, 365];
const METRICS = {
  orders: { label: 'orders', value: (r: StatsDay) => Number(r.orders), text: (v: number) => `${num(v)} orders` },
  energy: { label: 'energy delivered', value: (r: StatsDay) => Number(r.energy), text: (v: number) => `${num(v)} energy` },
  spent: { label: 'TRX spent', value: (r: StatsDay) => Number(r.spent_sun) / 1e6, text: (v: number) => trx(Math.round(v * 1e6)) },
} as const;
type Metric = keyof typeof METRICS;

export const statsPage: Page = (root) => {
  const days = h('select', { name: 'days' }, RANGES.map((d) => h('option', { value: d, selected: d === 30 }, `last ${d} days`)));
  const metric = h('select', { name: 'metric' }, (Object.keys(METRICS) as Metric[]).map((m) => h('option', { value: m }, METRICS[m].label)));
  const totals = h('div', { class: 'stats' }, 'Loading…');
  const series = h('div', { class: 'chart-box' });
  const heat = h('div', { class: 'chart-box' });
  const top = h('div', { class: 'chart-box' });
  const note = h('div');
  const csv = h('a', { class: 'button small', download: 'account-stats.csv', 'data-testid': 'stats-csv' }, 'Export daily CSV');
  let stats: Stats | null = null;

  const drawSeries = () => {
    const m = METRICS[metric.value as Metric];
    if (!stats) return;
    put(series, barChart(stats.series.map((r) => ({ label: String(r.date).slice(5), value: m.value(r), tip: `${r.date}: ${m.text(m.value(r))}` })),
      { testid: 'series-chart', integer: metric.value !== 'spent' }));
  };
  const load = async () => {
    const to = new Date();
    const from = new Date(to.getTime() - Number(days.value) * 86_400_000);
    const params = { from: from.toISOString(), to: to.toISOString(), utc_offset_minutes: -to.getTimezoneOffset() };
    csv.href = `/v1/account/stats${query({ ...params, format: 'csv' })}`;
    let s: Stats;
    try {
      const answer = await ok(http.GET('/v1/account/stats', { params: { query: params } }));
      // Without format=csv the answer is JSON; the CSV form is the download link above.
      if (typeof answer === 'string') throw new Error('The API answered CSV where JSON was asked for.');
      s = stats = answer;
    } catch (err) {
      put(totals, notice('error', errorText(err)));
      return;
    }
    const t = s.totals;
    put(totals,
      stat('Orders', num(t.orders), 'total-orders'), stat('Energy delivered', num(t.energy), 'total-energy'),
      stat('Spent', trx(t.spent_sun), 'total-spent'), stat('Average per 65k energy', t.avg_price_sun_per_65k === null ? '–' : trx(t.avg_price_sun_per_65k), 'avg-price'));
    put(note, s.clamped ? notice('info', `Statistics are kept ${s.retention_months} months; shown from ${s.from.slice(0, 10)}.`) : null);
    drawSeries();
    put(heat, heatMap(s.weekday_hour, 'heat-map'));
    const receivers = s.top_receivers;
    put(top, receivers.length === 0 ? h('p', { class: 'muted' }, 'No orders in this range.')
      : hbarChart(receivers.map((r) => ({
        label: short(r.receiver, 5), value: Number(r.orders), text: `${num(r.orders)} · ${compact(Number(r.energy))} energy`,
        tip: `${r.receiver}: ${num(r.orders)} orders, ${num(r.energy)} energy, ${trx(r.spent_sun)}`,
      })), 'top-receivers'));
  };
  days.onchange = () => void load();
  metric.onchange = () => stats && drawSeries();

  put(root,
    section('Totals', h('div', { class: 'row' }, h('label', null, 'Range', days), csv), note, totals),
    section('Per day', h('div', { class: 'row' }, h('label', null, 'Show', metric)), series),
    section('When orders are placed (weekday × hour, your time zone)', heat),
    section('Top receivers (by orders)', top));
  void load();
};
