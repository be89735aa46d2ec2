/**
 * Orders: place an order at the live price (GET /v1/prices, refreshed), the list with filters and live
 * status (polled), paging by cursor, CSV export of every matching order.
 */
import { http, ok, query, type OrderRequest, type paths, type Schemas } from '../api';
import { field, h, put } from '../dom';
import { num, short, trx, when } from '../format';
import { can } from '../state';
import { badge, busy, errorText, notice, section, table } from '../ui';
import type { Page } from '../page';
import { CursorList } from '../cursor-list';

/** The statuses an order reads as (a broadcast delegation reads `active`: domain/orders/view.ts shownStatus). */
const STATUSES = ['allocating', 'confirmed', 'active', 'expired', 'reclaimed', 'failed', 'refunded'];
/** States an order still moves out of on its own: the list keeps polling while one is shown. */
export const MOVING = new Set(['created', 'paid', 'allocating', 'delegated', 'confirmed']);

export const ordersPage: Page = (root) => {
  const timers: number[] = [];
  const listBox = h('div', null, 'Loading…');
  const csv = h('a', { class: 'button small', download: 'orders.csv', 'data-testid': 'csv-export' }, 'Export CSV');
  const filters = h('form', { class: 'filters', 'data-testid': 'order-filters' },
    h('label', null, 'Status', h('select', { name: 'status' }, h('option', { value: '' }, 'any'), STATUSES.map((s) => h('option', { value: s }, s)))),
    h('label', null, 'Resource', h('select', { name: 'resource' }, h('option', { value: '' }, 'any'), ['energy', 'bandwidth', 'activation'].map((s) => h('option', { value: s }, s)))),
    h('label', null, 'Receiver', h('input', { name: 'receiver', placeholder: 'T…', autocomplete: 'off', size: 20 })),
    h('label', null, 'From', h('input', { name: 'from', type: 'date' })),
    h('button', { type: 'submit', class: 'small' }, 'Filter'));

  const params = () => {
    const to = field(filters, 'from');
    const status = field(filters, 'status') as Schemas['OrderStatus'] | '';
    const resource = field(filters, 'resource') as Schemas['OrderResource'] | '';
    return { status: status ? [status] : undefined, resource: resource || undefined, receiver: field(filters, 'receiver') || undefined, from: to ? new Date(to).toISOString() : undefined };
  };
  const draw = () => put(listBox, table(['Order', 'Created', 'Resource', 'Receiver', 'Status', 'Total'], list.rows.map((o) => [
    h('a', { href: `#/orders/${encodeURIComponent(o.id)}`, 'data-order': o.id }, short(o.id, 8)),
    when(o.created_at),
    `${o.resource}${o.amount ? ' ' + num(o.amount) : ''}${o.tier ? ' · ' + o.tier : ''}`,
    h('span', { title: o.receiver }, short(o.receiver)),
    badge(o.status),
    trx(o.total_amount_sun),
  ]), 'orders'));

  const list = new CursorList((cursor) => ok(http.GET('/v1/orders', { params: { query: { ...params(), limit: 20, cursor } } })), draw, listBox);
  const load = () => list.load();
  /** Live status: re-reads the orders shown that can still move (one GET each, few at a time). */
  const refresh = async () => {
    const moving = list.rows.filter((o) => MOVING.has(o.status)).slice(0, 10);
    if (moving.length === 0) return;
    const fresh = await Promise.all(moving.map((o) => ok(http.GET('/v1/orders/{orderId}', { params: { path: { orderId: o.id } } })).catch(() => o)));
    const byId = new Map(fresh.map((o) => [o.id, o]));
    list.rows = list.rows.map((o) => byId.get(o.id) ?? o);
    draw();
  };
  const updateCsv = () => (csv.href = `/v1/orders${query({ ...params(), format: 'csv' })}`);
  filters.onsubmit = (ev) => {
    ev.preventDefault();
    updateCsv();
    void load();
  };
  updateCsv();

  put(root,
    can('editor') ? placeOrder(() => void load(), timers) : null,
    section('Orders', filters, listBox, h('div', { class: 'row' }, list.more, csv)));
  void load();
  timers.push(window.setInterval(() => void refresh().catch(() => undefined), 2000));
  // New orders from elsewhere (API, batches) appear without a reload.
  timers.push(window.setInterval(() => { if (!list.cursor) void load(); }, 15000));
  return () => timers.forEach(clearInterval);
};

type Prices = paths['/v1/prices']['get']['responses'][200]['content']['application/json'];

/** The order form: the live price of the chosen tier, the total it implies, a cap at that total. */
function placeOrder(placed: () => void, timers: number[]): HTMLElement {
  const out = h('div');
  const priceLine = h('p', { class: 'price', 'data-testid': 'live-price' }, 'Loading prices…');
  const book = h('datalist', { id: 'address-book' });
  const form = h('form', { class: 'stack', 'data-testid': 'order-form' },
    h('div', { class: 'grid' },
      h('label', null, 'Resource', h('select', { name: 'resource' }, ['energy', 'bandwidth', 'activation'].map((r) => h('option', { value: r }, r)))),
      h('label', null, 'Amount', h('input', { name: 'amount', type: 'number', min: 1, step: 1, value: '65000', inputmode: 'numeric' })),
      h('label', null, 'Tier', h('select', { name: 'tier' })),
      h('label', { class: 'wide' }, 'Receiver', h('input', { name: 'receiver', placeholder: 'T… address', list: 'address-book', autocomplete: 'off', required: true }))),
    book, priceLine,
    h('button', { type: 'submit', class: 'primary', 'data-testid': 'place-order' }, 'Place order'), out);
  let prices: Prices | null = null;
  const tierSel = form.elements.namedItem('tier') as HTMLSelectElement;
  const resSel = form.elements.namedItem('resource') as HTMLSelectElement;
  const amountIn = form.elements.namedItem('amount') as HTMLInputElement;

  const rowFor = () => prices?.data.find((r) => r.resource === resSel.value && r.tier === tierSel.value);
  const estimate = (): bigint | null => {
    if (!prices) return null;
    if (resSel.value === 'activation') return BigInt(prices.activation_fee_sun);
    const row = rowFor();
    const amount = Number(amountIn.value);
    if (!row || !Number.isInteger(amount) || amount <= 0) return null;
    return BigInt(row.price_sun_per_unit) * BigInt(amount);
  };
  const drawTiers = () => {
    const current = tierSel.value;
    const rows = (prices?.data ?? []).filter((r) => r.resource === resSel.value && r.available);
    put(tierSel, rows.map((r) => h('option', { value: r.tier }, r.tier)));
    if (rows.some((r) => r.tier === current)) tierSel.value = current;
    tierSel.disabled = amountIn.disabled = resSel.value === 'activation';
  };
  const drawPrice = () => {
    const row = rowFor();
    const total = estimate();
    if (!prices) return;
    put(priceLine, resSel.value === 'activation'
      ? `Activation: ${trx(prices.activation_fee_sun)}`
      : row ? [`${row.price_sun_per_unit} SUN per unit · total `, h('strong', null, total === null ? '–' : trx(total)),
        ` (+ ${trx(prices.activation_fee_sun)} if the receiver is not activated) · as of ${when(prices.as_of)}`] : 'No tier is on sale for this resource now.');
  };
  const loadPrices = async () => {
    try {
      prices = await ok(http.GET('/v1/prices'));
      drawTiers();
      drawPrice();
    } catch (err) {
      put(priceLine, notice('error', errorText(err)));
    }
  };
  resSel.onchange = () => { drawTiers(); drawPrice(); };
  tierSel.onchange = amountIn.oninput = drawPrice;
  ok(http.GET('/v1/account/addresses')).then((b) => put(book, b.data.map((e) => h('option', { value: e.address }, e.label))), () => undefined);

  busy(form, out, async () => {
    const resource = field(form, 'resource') as Schemas['OrderResource'];
    const total = estimate();
    const body: OrderRequest = {
      client_order_id: `dash-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`,
      resource, receiver: field(form, 'receiver'),
    };
    if (resource !== 'activation') {
      body.amount = Number(field(form, 'amount'));
      body.tier = field(form, 'tier') as Schemas['Tier'];
      // Never charged above what the page showed (plus a possible activation).
      if (total !== null && prices) body.max_price_sun = Number(total + BigInt(prices.activation_fee_sun));
    }
    const order = await ok(http.POST('/v1/orders', { body }));
    put(out, notice('ok', 'Order ', h('a', { href: `#/orders/${encodeURIComponent(order.id)}` }, order.id), ' placed: ', badge(order.status), ` · ${trx(order.total_amount_sun)}`));
    placed();
  });
  void loadPrices();
  timers.push(window.setInterval(() => void loadPrices(), 15000));
  return section('Place an order', form);
}
