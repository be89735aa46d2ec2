/** One order: every field, hashes linked to the explorer, live status, reclaim for editors. */
import { http, ok, type Schemas } from '../api';
import { h, put, type Child } from '../dom';
import { txUrl } from '../explorer';
import { num, trx, when } from '../format';
import { can } from '../state';
import { badge, errorText, notice, section } from '../ui';
import type { Page } from '../page';
import { MOVING } from './orders';

const RECLAIMABLE = new Set(['confirmed', 'active']);

function hashLink(hash: string | null | undefined): Child {
  return hash ? h('a', { href: txUrl(hash), target: '_blank', rel: 'noopener noreferrer', class: 'hash', 'data-testid': 'tx-link' }, hash) : '–';
}

export const orderDetailPage: Page = (root, id) => {
  const box = h('div', null, 'Loading…');
  const out = h('div');
  put(root, h('p', null, h('a', { href: '#/orders' }, '← Orders')), section(`Order ${id}`, box, out));
  let timer: number | undefined;
  // After a reclaim request the page keeps polling until the chain shows it (202: not on chain yet).
  let reclaiming = false;

  const draw = (o: Schemas['Order']) => {
    const rows: [string, Child][] = [
      ['Status', badge(o.status)], ['Confirmation', o.confirm_status], ['Resource', o.resource], ['Amount', num(o.amount)],
      ['Delivered', num(o.delivered_amount)], ['Tier', o.tier ?? '–'], ['Receiver', h('code', null, o.receiver)], ['Source', o.source ?? '–'],
      ['Price', o.price_sun_per_unit === null ? '–' : `${o.price_sun_per_unit} SUN/unit`], ['Paid', trx(o.pay_amount_sun)], ['Activation', trx(o.activate_amount_sun)],
      ['Total', trx(o.total_amount_sun)], ['Refunded', trx(o.refunded_amount_sun)],
      ['Delegation', (o.delegate_hashes?.length ? o.delegate_hashes : [null]).map((x: string | null) => h('div', null, hashLink(x)))],
      ['Activation tx', hashLink(o.activation?.hash)], ['Reclaim tx', hashLink(o.reclaim_hash)],
      ['Delegated', when(o.delegated_at)], ['Expires', when(o.expires_at)], ['Reclaimed', when(o.reclaimed_at)], ['Created', when(o.created_at)],
      ['Client id', o.client_order_id ?? '–'], ['Memo', o.memo ?? '–'],
    ];
    if (o.failure) rows.push(['Failure', `${o.failure.message} (${o.failure.code} ${o.failure.slug})`]);
    // The API refuses to reclaim a delegation not verified yet (409 3007 nothing_to_reclaim): offered once confirmed.
    const reclaim = can('editor') && RECLAIMABLE.has(o.status) && o.confirm_status === 'confirmed' && !o.reclaim_hash
      ? h('button', { type: 'button', 'data-testid': 'reclaim' }, 'Reclaim now') : null;
    if (reclaim) {
      reclaim.onclick = async () => {
        if (!confirm('Take the resource back now? The rental is not refunded.')) return;
        reclaim.disabled = true;
        try {
          const r = await ok(http.POST('/v1/orders/{orderId}/reclaim', { params: { path: { orderId: o.id } } }));
          put(out, notice('ok', `Reclaim requested: ${r.status}.`));
          reclaiming = r.status !== 'reclaimed';
          draw(r);
          if (reclaiming && timer === undefined) timer = window.setInterval(() => void load(), 2000);
        } catch (err) {
          put(out, notice('error', errorText(err)));
          reclaim.disabled = false;
        }
      };
    }
    put(box, h('dl', { class: 'fields', 'data-testid': 'order-detail' }, rows.map(([k, v]) => [h('dt', null, k), h('dd', null, v)])), reclaim);
  };

  const load = async () => {
    try {
      const o = await ok(http.GET('/v1/orders/{orderId}', { params: { path: { orderId: id ?? '' } } }));
      draw(o);
      if (o.status === 'reclaimed') reclaiming = false;
      // An active order still unconfirmed is polled until it is verified (then it can be reclaimed).
      if (!MOVING.has(o.status) && o.confirm_status !== 'unconfirmed' && !reclaiming && timer !== undefined) {
        clearInterval(timer);
        timer = undefined;
      }
    } catch (err) {
      put(box, notice('error', errorText(err)));
    }
  };
  void load();
  timer = window.setInterval(() => void load(), 2000);
  return () => clearInterval(timer);
};
