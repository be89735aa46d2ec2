/** The dashboard shell: session check, header, navigation by hash (#/orders/ord_…), one page at a time. */
import { http, ok, setCsrf, whenSignedOut } from './api';
import { h, put } from './dom';
import { short } from './format';
import { signInPage } from './signin';
import { accountName, state, type Session } from './state';
import { errorText, notice } from './ui';
import { overviewPage } from './pages/overview';
import { ordersPage } from './pages/orders';
import { orderDetailPage } from './pages/order-detail';
import { ledgerPage } from './pages/ledger';
import { webhooksPage } from './pages/webhooks';
import { keysPage } from './pages/keys';
import { membersPage } from './pages/members';
import { addressesPage } from './pages/addresses';
import { securityPage } from './pages/security';
import { batchesPage } from './pages/batches';
import { batchDetailPage } from './pages/batch-detail';
import { statsPage } from './pages/stats';

import type { Page } from './page';

const pages: { path: string; title: string; page: Page }[] = [
  { path: 'overview', title: 'Overview', page: overviewPage },
  { path: 'orders', title: 'Orders', page: ordersPage },
  { path: 'batches', title: 'Batches', page: batchesPage },
  { path: 'ledger', title: 'Ledger', page: ledgerPage },
  { path: 'stats', title: 'Stats', page: statsPage },
  { path: 'webhooks', title: 'Webhooks', page: webhooksPage },
  { path: 'keys', title: 'API keys', page: keysPage },
  { path: 'members', title: 'Members', page: membersPage },
  { path: 'addresses', title: 'Address book', page: addressesPage },
  { path: 'security', title: 'Security', page: securityPage },
];

const app = document.getElementById('app')!;
let leave: (() => void) | void;

function route(): { path: string; param: string | undefined } {
  const [path, param] = location.hash.replace(/^#\/?/, '').split('/');
  return { path: path || 'overview', param: param ? decodeURIComponent(param) : undefined };
}

function render(): void {
  if (leave) leave();
  leave = undefined;
  const s = state.session;
  if (!s) {
    signInPage(app, signedIn);
    return;
  }
  const { path, param } = route();
  const main = h('main', { id: 'main' });
  const nav = h('nav', { 'aria-label': 'Sections' }, pages.map((p) =>
    h('a', { href: `#/${p.path}`, class: p.path === path ? 'active' : undefined, 'aria-current': p.path === path ? 'page' : undefined }, p.title)));
  const signOut = h('button', { type: 'button', class: 'small ghost', 'data-testid': 'sign-out' }, 'Sign out');
  signOut.onclick = async () => {
    await ok(http.DELETE('/v1/session')).catch(() => undefined);
    signedOut();
  };
  put(app,
    h('header', null,
      h('div', { class: 'brand' }, 'Energy rental', h('span', { class: `net net-${s.network}` }, s.network),
        h('span', { class: 'account-name', 'data-testid': 'account-name' }, accountName(s))),
      h('div', { class: 'who' }, h('span', { title: s.address }, short(s.address, 5)), h('span', { class: 'role', 'data-testid': 'role' }, s.role ?? ''), signOut)),
    nav, main);
  const detail: Record<string, Page> = { orders: orderDetailPage, batches: batchDetailPage };
  const entry = (param ? detail[path] : undefined) ?? pages.find((p) => p.path === path)?.page;
  if (!entry) {
    put(main, notice('warn', 'No such page.'));
    return;
  }
  try {
    leave = entry(main, param);
  } catch (err) {
    put(main, notice('error', errorText(err)));
  }
}

function signedIn(session: Session): void {
  state.session = session;
  setCsrf(session.csrf_token);
  render();
}

function signedOut(): void {
  state.session = null;
  setCsrf(null);
  render();
}

whenSignedOut(signedOut);
window.addEventListener('hashchange', render);

// A page load with a live session cookie goes straight in (GET /v1/session returns the CSRF token).
ok(http.GET('/v1/session')).then(signedIn, () => signedOut());
