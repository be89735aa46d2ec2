/** Members and roles: everyone sees the list; the owner adds, changes roles and removes. */
import { http, ok } from '../api';
import { field, h, put } from '../dom';
import { when } from '../format';
import { can, state } from '../state';
import { actionButton, busy, errorText, notice, section, table } from '../ui';
import type { Page } from '../page';

export const membersPage: Page = (root) => {
  const listBox = h('div', null, 'Loading…');
  const out = h('div');
  const load = async () => {
    try {
      const list = await ok(http.GET('/v1/account/members'));
      put(listBox, table(['Address', 'Role', 'Added', ''], list.data.map((m) => {
        const remove = can('owner') && m.role !== 'owner' ? actionButton('Remove', `Remove ${m.address}? Their sessions end at once.`, out, async () => {
          await ok(http.DELETE('/v1/account/members/{address}', { params: { path: { address: m.address } } }));
          await load();
        }) : null;
        return [h('code', null, m.address), m.address === state.session?.address ? `${m.role} (you)` : m.role, when(m.added_at), remove];
      }), 'members'));
    } catch (err) {
      put(listBox, notice('error', errorText(err)));
    }
  };
  let add: HTMLElement | null = null;
  if (can('owner')) {
    const form = h('form', { class: 'row', 'data-testid': 'member-form' },
      h('label', { class: 'grow' }, 'Wallet address', h('input', { name: 'address', placeholder: 'T…', required: true, autocomplete: 'off' })),
      h('label', null, 'Role', h('select', { name: 'role' }, h('option', { value: 'viewer' }, 'viewer'), h('option', { value: 'editor' }, 'editor'))),
      h('button', { type: 'submit', class: 'primary', 'data-testid': 'add-member' }, 'Add or change'));
    busy(form, out, async () => {
      await ok(http.POST('/v1/account/members', { body: { address: field(form, 'address'), role: field(form, 'role') as 'editor' | 'viewer' } }));
      form.reset();
      await load();
    });
    add = section('Add a member', h('p', { class: 'muted' }, 'Viewers read everything; editors also place orders, manage webhooks and the address book. A member signs in with their own wallet.'), form);
  }
  put(root, add, out, section('Members', listBox));
  void load();
};
