/** One batch: its receivers and how far each got (polled while any is queued or processing), cancel for editors. */
import { http, ok, type Schemas } from '../api';
import { h, put } from '../dom';
import { txUrl } from '../explorer';
import { num, short, trx, when } from '../format';
import { can } from '../state';
import { actionButton, badge, errorText, notice, section, table } from '../ui';
import type { Page } from '../page';
import { BATCH_MOVING, progress } from './batches';

export const batchDetailPage: Page = (root, id) => {
  const head = h('div', null, 'Loading…');
  const items = h('div');
  const out = h('div', { 'data-testid': 'batch-result' });
  put(root, h('p', null, h('a', { href: '#/batches' }, '← Batches')), section(`Batch ${id}`, head, out, items));
  let timer: number | undefined = window.setInterval(() => void load(), 2000);

  const draw = (b: Schemas['Batch']) => {
    const cancel = can('editor') && Number(b.summary.queued) > 0
      ? actionButton('Cancel queued receivers', 'Cancel the receivers not started yet? Those running finish.', out, async () => {
        const r = await ok(http.POST('/v1/batches/{batchId}/cancel', { params: { path: { batchId: b.id } } }));
        put(out, notice('ok', `${r.cancelled} receiver(s) cancelled.`));
        await load();
      })
      : null;
    cancel?.setAttribute('data-testid', 'cancel-batch');
    put(head, h('dl', { class: 'fields', 'data-testid': 'batch-detail' },
      h('dt', null, 'Status'), h('dd', null, badge(b.status)),
      h('dt', null, 'Progress'), h('dd', null, progress(b.summary)),
      h('dt', null, 'Summary'), h('dd', null, (['completed', 'partial', 'failed', 'insufficient_funds', 'cancelled'] as const).filter((k) => b.summary[k]).map((k) => `${k.replace('_', ' ')} ${b.summary[k]}`).join(' · ') || '–'),
      h('dt', null, 'Client id'), h('dd', null, b.client_batch_id ?? '–'),
      h('dt', null, 'Created'), h('dd', null, when(b.created_at)),
      h('dt', null, 'Finished'), h('dd', null, when(b.finished_at))), cancel);
    put(items, table(['Receiver', 'Status', 'Delivered', 'Orders', 'Charged', 'Note'], b.items.map((i) => [
      h('span', { title: i.receiver }, short(i.receiver)),
      badge(i.status),
      i.resource === 'activation' ? (i.activation?.hash ? h('a', { href: txUrl(i.activation.hash), target: '_blank', rel: 'noopener noreferrer' }, 'activated') : '–')
        : `${num(i.delivered_amount)} / ${num(i.amount)}${i.tier ? ' · ' + i.tier : ''}`,
      (i.order_ids as string[]).map((o) => h('div', null, h('a', { href: `#/orders/${encodeURIComponent(o)}` }, short(o, 8)))),
      trx(i.charged_amount_sun),
      i.failure ? `${i.failure.message} (${i.failure.code})` : i.activation?.status === 'done' ? 'activated' : '',
    ]), 'batch-items'));
  };

  const load = async () => {
    try {
      const b = await ok(http.GET('/v1/batches/{batchId}', { params: { path: { batchId: id ?? '' } } }));
      draw(b);
      if (!BATCH_MOVING.has(b.status) && timer !== undefined) {
        clearInterval(timer);
        timer = undefined;
      }
    } catch (err) {
      put(head, notice('error', errorText(err)));
    }
  };
  void load();
  return () => clearInterval(timer);
};
