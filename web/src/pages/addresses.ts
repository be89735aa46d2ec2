/** Address book: saved receivers (offered when placing an order); editors add and delete. */
import { http, ok } from '../api';
import { field, h, put } from '../dom';
import { when } from '../format';
import { can } from '../state';
import { actionButton, busy, copyButton, errorText, notice, section, table } from '../ui';
import type { Page } from '../page';

export const addressesPage: Page = (root) => {
  const listBox = h('div', null, 'Loading…');
  const out = h('div');
  const load = async () => {
    try {
      const book = await ok(http.GET('/v1/account/addresses'));
      put(listBox, h('p', { class: 'muted' }, `${book.used} of ${book.limit} used.`), table(['Label', 'Address', 'Updated', ''], book.data.map((e) => {
        const del = can('editor') ? actionButton('Delete', null, out, async () => {
          await ok(http.DELETE('/v1/account/addresses/{entryId}', { params: { path: { entryId: e.id } } }));
          await load();
        }) : null;
        return [e.label, h('span', null, h('code', null, e.address), ' ', copyButton(e.address)), when(e.updated_at), del];
      }), 'address-book'));
    } catch (err) {
      put(listBox, notice('error', errorText(err)));
    }
  };
  let add: HTMLElement | null = null;
  if (can('editor')) {
    const form = h('form', { class: 'row', 'data-testid': 'address-form' },
      h('label', null, 'Label', h('input', { name: 'label', maxlength: 64, required: true })),
      h('label', { class: 'grow' }, 'Address', h('input', { name: 'address', placeholder: 'T…', required: true, autocomplete: 'off' })),
      h('button', { type: 'submit', class: 'primary' }, 'Save'));
    busy(form, out, async () => {
      await ok(http.POST('/v1/account/addresses', { body: { label: field(form, 'label'), address: field(form, 'address') } }));
      form.reset();
      await load();
    });
    add = section('Save an address', h('p', { class: 'muted' }, 'Saving an address already in the book replaces its label.'), form);
  }
  put(root, add, out, section('Address book', listBox));
  void load();
};
