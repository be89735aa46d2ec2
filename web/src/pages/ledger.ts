/** Ledger: every journal of the account, newest first, paged by cursor (forward, and back through the cursors seen). */
import { api, query } from '../api';
import { h, put } from '../dom';
import { short, trx, usdt, when } from '../format';
import { txUrl } from '../explorer';
import { errorText, notice, section, table } from '../ui';
import type { Page } from '../main';

const PAGE = 20;

export const ledgerPage: Page = (root) => {
  const box = h('div', null, 'Loading…');
  const kind = h('select', { name: 'kind' }, h('option', { value: 'all' }, 'all entries'), h('option', { value: 'deposit' }, 'deposits only'));
  const prev = h('button', { type: 'button', class: 'small', 'data-testid': 'ledger-prev' }, 'Newer');
  const next = h('button', { type: 'button', class: 'small', 'data-testid': 'ledger-next' }, 'Older');
  const pageNo = h('span', { class: 'muted' });
  // cursors[i] opened page i; page 0 has none.
  let cursors: (string | undefined)[] = [undefined];
  let at = 0;
  let nextCursor: string | null = null;

  const load = async () => {
    try {
      const page = await api('GET', `/v1/ledger${query({ kind: kind.value, limit: PAGE, cursor: cursors[at] })}`);
      nextCursor = page.next_cursor;
      prev.disabled = at === 0;
      next.disabled = !nextCursor;
      pageNo.textContent = `page ${at + 1}`;
      put(box, table(['When', 'Kind', 'Amount', 'Detail'], (page.data as any[]).map((e) => [
        when(e.created_at), e.kind,
        h('span', { class: Number(e.amount_sun) < 0 ? 'neg' : 'pos' }, trx(e.amount_sun), Number(e.amount_usdt) ? ` · ${usdt(e.amount_usdt)}` : ''),
        e.deposit ? h('span', null, `${e.deposit.asset ?? ''} ${e.deposit.status} `, e.deposit.txid ? h('a', { href: txUrl(e.deposit.txid), target: '_blank', rel: 'noopener noreferrer' }, short(e.deposit.txid, 8)) : null)
          : e.order_id ? h('a', { href: `#/orders/${encodeURIComponent(e.order_id)}` }, short(e.order_id, 8)) : short(e.id, 8),
      ]), 'ledger'));
    } catch (err) {
      put(box, notice('error', errorText(err)));
    }
  };
  next.onclick = () => {
    if (!nextCursor) return;
    cursors = cursors.slice(0, at + 1).concat(nextCursor);
    at += 1;
    void load();
  };
  prev.onclick = () => {
    if (at === 0) return;
    at -= 1;
    void load();
  };
  kind.onchange = () => {
    cursors = [undefined];
    at = 0;
    void load();
  };
  put(root, section('Ledger', h('div', { class: 'row' }, h('label', null, 'Show ', kind)), box, h('div', { class: 'row' }, prev, pageNo, next)));
  void load();
};
