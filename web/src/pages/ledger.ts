/**
 * Ledger: every journal of the account, newest first, paged by cursor (forward, and back through the cursors
 * seen); CSV export of every entry of the chosen kind, walked page by page in the browser.
 */
import { client, http, ok } from '../api';
import { h, put } from '../dom';
import { short, trx, usdt, when } from '../format';
import { txUrl } from '../explorer';
import { actionButton, errorText, notice, section, table } from '../ui';
import { ledgerCsv } from '../ledger-csv';
import type { Page } from '../page';

const PAGE = 20;

export const ledgerPage: Page = (root) => {
  const box = h('div', null, 'Loading…');
  const kind = h('select', { name: 'kind' }, h('option', { value: 'all' }, 'all entries'), h('option', { value: 'deposit' }, 'deposits only'));
  const kindValue = () => kind.value as 'all' | 'deposit';
  const prev = h('button', { type: 'button', class: 'small', 'data-testid': 'ledger-prev' }, 'Newer');
  const next = h('button', { type: 'button', class: 'small', 'data-testid': 'ledger-next' }, 'Older');
  const pageNo = h('span', { class: 'muted' });
  // cursors[i] opened page i; page 0 has none.
  let cursors: (string | undefined)[] = [undefined];
  let at = 0;
  let nextCursor: string | null = null;

  const load = async () => {
    try {
      const page = await ok(http.GET('/v1/ledger', { params: { query: { kind: kindValue(), limit: PAGE, cursor: cursors[at] } } }));
      nextCursor = page.next_cursor;
      prev.disabled = at === 0;
      next.disabled = !nextCursor;
      pageNo.textContent = `page ${at + 1}`;
      put(box, table(['When', 'Kind', 'Amount', 'Detail'], page.data.map((e) => [
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
  const out = h('div');
  const exportCsv = actionButton('Export CSV', null, out, async () => {
    const all = [];
    for await (const entry of client.paginate('/v1/ledger', { query: { kind: kindValue(), limit: 200 } })) all.push(entry);
    download(`ledger-${kind.value}.csv`, ledgerCsv(all));
  }, 'small');
  exportCsv.setAttribute('data-testid', 'ledger-export');
  put(root, section('Ledger', h('div', { class: 'row' }, h('label', null, 'Show ', kind), exportCsv), out, box, h('div', { class: 'row' }, prev, pageNo, next)));
  void load();
};

/** Saves `text` as a file through a temporary object URL (nothing leaves the browser). */
function download(name: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/csv;charset=utf-8' }));
  const a = h('a', { href: url, download: name, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
