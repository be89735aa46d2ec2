/** Security: this wallet's recent sign-ins, sign out everywhere, and where transaction links point. */
import { http, ok } from '../api';
import { field, h, put } from '../dom';
import { explorerPrefix, setExplorerPrefix, validExplorer } from '../explorer';
import { when } from '../format';
import { state } from '../state';
import { busy, errorText, notice, section, table } from '../ui';
import type { Page } from '../page';

export const securityPage: Page = (root) => {
  const history = h('div', null, 'Loading…');
  const out = h('div');
  const everywhere = h('button', { type: 'button', class: 'danger', 'data-testid': 'sign-out-everywhere' }, 'Sign out everywhere');
  everywhere.onclick = async () => {
    if (!confirm('End every session of this wallet on this account, this one included?')) return;
    try {
      await ok(http.POST('/v1/session/revoke-all'));
      location.reload();
    } catch (err) {
      put(out, notice('error', errorText(err)));
    }
  };
  const explorerOut = h('div');
  const explorer = h('form', { class: 'row' },
    h('label', { class: 'grow' }, 'Transaction link prefix', h('input', { name: 'url', type: 'url', value: explorerPrefix() })),
    h('button', { type: 'submit', class: 'small' }, 'Save'));
  busy(explorer, explorerOut, async () => {
    const url = field(explorer, 'url');
    if (!validExplorer(url)) throw new Error('Use an http(s) URL; the hash is appended to it.');
    setExplorerPrefix(url);
    put(explorerOut, notice('ok', 'Saved in this browser.'));
  });
  put(root,
    section('Sign-ins', h('p', { class: 'muted' }, `The last sign-ins of ${state.session?.address} on this account.`), history),
    section('Sessions', h('p', null, 'Ends every session of your wallet on this account, in every browser. Other members stay signed in.'), everywhere, out),
    section('Explorer', explorer, explorerOut));
  ok(http.GET('/v1/session/history')).then(
    (r) => put(history, table(['When', 'Address', 'IP'], r.data.map((s) => [when(s.signed_in_at), h('code', null, s.address), s.ip ?? '–']), 'sign-ins')),
    (err) => put(history, notice('error', errorText(err))));
};
