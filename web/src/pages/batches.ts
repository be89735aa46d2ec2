/**
 * Batches: submit a list of receivers (pasted or from a CSV file) with defaults for amount, tier and
 * resource, then the list of batches with their progress. One batch's items: pages/batch-detail.ts.
 */
import { http, ok, type paths, type Schemas } from '../api';
import { field, h, put } from '../dom';
import { short, trx, when } from '../format';
import { parseReceivers, type BatchLine } from '../batch-input';
import { can } from '../state';
import { badge, busy, errorText, notice, section, table } from '../ui';
import type { Page } from '../page';
import { CursorList } from '../cursor-list';

type BatchRequest = paths['/v1/batches']['post']['requestBody']['content']['application/json'];

/** Batch states that still move: the list re-reads itself while one is shown. */
export const BATCH_MOVING = new Set(['queued', 'processing']);
const FALLBACK_MAX_RECEIVERS = 100;

/** "3 of 10 done" with a bar; done = every terminal receiver. */
export function progress(summary: Schemas['Batch']['summary']): HTMLElement {
  const total = Number(summary.total) || 0;
  const done = total - Number(summary.queued ?? 0) - Number(summary.processing ?? 0);
  const bar = h('progress', { max: Math.max(1, total), value: done, 'aria-label': 'receivers done' });
  return h('span', { class: 'progress', 'data-done': done, 'data-total': total }, bar, ` ${done}/${total}`);
}

export const batchesPage: Page = (root) => {
  const timers: number[] = [];
  const listBox = h('div', null, 'Loading…');

  const draw = () => put(listBox, table(['Batch', 'Created', 'Status', 'Progress', 'Charged'], list.rows.map((b) => [
    h('a', { href: `#/batches/${encodeURIComponent(b.id)}`, 'data-batch': b.id }, b.client_batch_id ?? short(b.id, 8)),
    when(b.created_at), badge(b.status), progress(b.summary),
    trx(b.items.reduce((n, i) => n + BigInt(i.charged_amount_sun ?? 0), 0n)),
  ]), 'batches'));
  const list = new CursorList((cursor) => ok(http.GET('/v1/batches', { params: { query: { limit: 20, cursor } } })), draw, listBox);
  const load = () => list.load();
  // Live progress: the first page again while any shown batch is still running.
  timers.push(window.setInterval(() => { if (!list.cursor && list.rows.some((b) => BATCH_MOVING.has(b.status))) void load(); }, 3000));

  put(root, can('editor') ? submitForm(() => void load()) : null, section('Batches', listBox, h('div', { class: 'row' }, list.more)));
  void load();
  return () => timers.forEach(clearInterval);
};

/** The submit form: receivers (paste or CSV file), defaults from the live price list, a preview of what is sent. */
function submitForm(submitted: () => void): HTMLElement {
  const out = h('div');
  const preview = h('p', { class: 'muted', 'data-testid': 'batch-preview' }, 'One receiver per line: address, optionally amount, tier and resource.');
  const file = h('input', { type: 'file', accept: '.csv,.txt,text/csv,text/plain', 'data-testid': 'batch-file' });
  const form = h('form', { class: 'stack', 'data-testid': 'batch-form' },
    h('label', null, 'Receivers', h('textarea', { name: 'receivers', rows: 6, spellcheck: 'false', placeholder: 'TXYZ…\nTABC…,130000,1h', 'data-testid': 'batch-receivers' })),
    h('label', null, 'Or load a CSV file (columns receiver, amount, tier, resource; a header line is optional)', file),
    h('div', { class: 'grid' },
      h('label', null, 'Resource', h('select', { name: 'resource' }, ['energy', 'bandwidth', 'activation'].map((r) => h('option', { value: r }, r)))),
      h('label', null, 'Amount (default)', h('input', { name: 'amount', type: 'number', min: 1, step: 1, value: '65000', inputmode: 'numeric' })),
      h('label', null, 'Tier (default)', h('select', { name: 'tier' })),
      h('label', { class: 'check' }, h('input', { type: 'checkbox', name: 'activate', checked: true }), 'Activate receivers that are not active yet')),
    preview,
    h('button', { type: 'submit', class: 'primary', 'data-testid': 'submit-batch' }, 'Submit batch'), out);
  const area = form.elements.namedItem('receivers') as HTMLTextAreaElement;
  const resSel = form.elements.namedItem('resource') as HTMLSelectElement;
  const tierSel = form.elements.namedItem('tier') as HTMLSelectElement;
  const amountIn = form.elements.namedItem('amount') as HTMLInputElement;
  let prices: Schemas['PriceRow'][] = [];
  let maxReceivers = FALLBACK_MAX_RECEIVERS;

  const drawTiers = () => {
    const current = tierSel.value;
    const rows = prices.filter((r) => r.resource === resSel.value && r.available);
    put(tierSel, rows.map((r) => h('option', { value: r.tier }, `${r.tier} · ${r.price_sun_per_unit} SUN/unit`)));
    if (rows.some((r) => r.tier === current)) tierSel.value = current;
    tierSel.disabled = amountIn.disabled = resSel.value === 'activation';
  };
  const parsed = () => parseReceivers(area.value, maxReceivers);
  const drawPreview = () => {
    const p = parsed();
    if (area.value.trim() === '') return put(preview, 'One receiver per line: address, optionally amount, tier and resource.');
    put(preview, p.errors.length
      ? notice('error', h('strong', null, `${p.errors.length} line(s) to fix:`), h('ul', null, p.errors.slice(0, 8).map((e) => h('li', null, e.line ? `line ${e.line}: ${e.message}` : e.message))))
      : `${p.items.length} receiver(s) ready.`);
  };
  area.oninput = drawPreview;
  resSel.onchange = drawTiers;
  file.onchange = async () => {
    const f = file.files?.[0];
    if (!f) return;
    area.value = await f.text();
    drawPreview();
  };
  ok(http.GET('/v1/prices')).then((p) => { prices = p.data; drawTiers(); }, (err) => put(out, notice('error', errorText(err))));
  ok(http.GET('/v1/account')).then((a) => { maxReceivers = a.limits?.max_batch_receivers ?? maxReceivers; }, () => undefined);

  busy(form, out, async () => {
    const p = parsed();
    if (p.items.length === 0 || p.errors.length) {
      drawPreview();
      throw new Error(p.items.length === 0 ? 'Add at least one receiver.' : 'Fix the lines listed above first.');
    }
    const resource = field(form, 'resource') as Schemas['OrderResource'];
    const defaults: NonNullable<BatchRequest['defaults']> = { resource };
    if (resource !== 'activation') Object.assign(defaults, { amount: Number(field(form, 'amount')), tier: field(form, 'tier') as Schemas['Tier'] });
    if (!(form.elements.namedItem('activate') as HTMLInputElement).checked) defaults.activate = false;
    const body: BatchRequest = {
      // Also the idempotency key: a double click or a retried request gives back the same batch.
      client_batch_id: `dash-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`,
      defaults,
      // The parser keeps tier and resource as typed; the API checks them (400 names the line's field).
      items: p.items.map((i: BatchLine) => ({ ...i }) as BatchRequest['items'][number]),
    };
    const batch = await ok(http.POST('/v1/batches', { body }));
    area.value = '';
    drawPreview();
    put(out, notice('ok', 'Batch ', h('a', { href: `#/batches/${encodeURIComponent(batch.id)}`, 'data-testid': 'batch-link' }, batch.id),
      ` queued: ${batch.items_accepted} receiver(s). Each is charged when it runs.`));
    submitted();
  });
  return section('Submit a batch', form);
}
