/** API keys: list; owners create (secret shown once) and revoke. The page itself never uses a key. */
import { http, ok, type paths } from '../api';

type ApiScope = NonNullable<paths['/v1/api-keys']['post']['requestBody']>['content']['application/json']['scopes'] extends (infer S)[] | undefined ? S : never;
import { h, put } from '../dom';
import { when } from '../format';
import { can } from '../state';
import { actionButton, busy, errorText, notice, secretOnce, section, table } from '../ui';
import type { Page } from '../page';

const SCOPES = ['account.read', 'balance.read', 'orders.read', 'orders.write', 'webhooks.read', 'webhooks.write'];

export const keysPage: Page = (root) => {
  const listBox = h('div', null, 'Loading…');
  const out = h('div');
  const load = async () => {
    try {
      const list = await ok(http.GET('/v1/api-keys'));
      put(listBox, table(['Name', 'Key id', 'Scopes', 'Created', 'Last used', ''], list.data.map((k) => {
        const revoke = can('owner') ? actionButton('Revoke', `Revoke ${k.name ?? k.id}? Bots using it stop working at once.`, out, async () => {
          await ok(http.DELETE('/v1/api-keys/{keyId}', { params: { path: { keyId: k.id } } }));
          await load();
        }) : null;
        return [k.name ?? '–', h('code', null, k.id), (k.scopes as string[]).join(' '), when(k.created_at), when(k.last_used_at), revoke];
      }), 'api-keys'));
    } catch (err) {
      put(listBox, notice('error', errorText(err)));
    }
  };
  let create: HTMLElement | null = null;
  if (can('owner')) {
    const form = h('form', { class: 'stack', 'data-testid': 'key-form' },
      h('label', null, 'Name', h('input', { name: 'name', maxlength: 64, placeholder: 'trading bot' })),
      h('fieldset', null, h('legend', null, 'Scopes'), SCOPES.map((s) => h('label', { class: 'check' }, h('input', { type: 'checkbox', name: 'scope', value: s, checked: true }), s))),
      h('button', { type: 'submit', class: 'primary', 'data-testid': 'create-key' }, 'Create key'));
    busy(form, out, async () => {
      const scopes = [...form.querySelectorAll<HTMLInputElement>('input[name=scope]:checked')].map((i) => i.value as ApiScope);
      const name = (form.elements.namedItem('name') as HTMLInputElement).value.trim();
      const key = await ok(http.POST('/v1/api-keys', { body: { scopes, ...(name ? { name } : {}) } }));
      form.reset();
      if (!key.secret) throw new Error('The API answered without the secret.');
      put(out, secretOnce(`Secret of ${key.id}`, key.secret));
      await load();
    });
    create = section('Create an API key', form);
  }
  put(root, create, out, section('API keys', listBox));
  void load();
};
