/** Webhooks: endpoints, add (secret shown once), rotate secret (shown once), send a test, pause, delete, delivery log. */
import { http, ok, type Schemas } from '../api';
import { field, h, put } from '../dom';
import { short, when } from '../format';
import { can } from '../state';
import { badge, busy, errorText, notice, secretOnce, section, table } from '../ui';
import type { Page } from '../page';

export const webhooksPage: Page = (root) => {
  const listBox = h('div', null, 'Loading…');
  const out = h('div', { 'data-testid': 'webhook-result' });
  const logBox = h('div');

  const load = async () => {
    try {
      const list = await ok(http.GET('/v1/webhooks'));
      put(listBox, h('p', { class: 'muted' }, `Up to ${list.max_endpoints} endpoints: ${(list.roles as string[]).join(', ')}.`),
        table(['URL', 'Role', 'State', 'Last delivery', ''], list.data.map((w) => [
          h('code', { class: 'url' }, w.url), w.role, w.is_active ? 'active' : 'paused',
          w.last_delivery_at ? `${when(w.last_delivery_at)} · ${w.last_delivery_status ?? 'no answer'}` : '–',
          actions(w),
        ]), 'webhooks'));
    } catch (err) {
      put(listBox, notice('error', errorText(err)));
    }
  };

  const act = async (fn: () => Promise<void>) => {
    put(out);
    try {
      await fn();
    } catch (err) {
      put(out, notice('error', errorText(err)));
    }
  };

  const actions = (w: Schemas['WebhookEndpoint']): HTMLElement => {
    const log = button('Delivery log', () => act(() => showLog(w)));
    if (!can('editor')) return h('div', { class: 'row' }, log);
    return h('div', { class: 'row' },
      button('Send test', () => act(async () => {
        const r = await ok(http.POST('/v1/webhooks/{webhookId}/test', { params: { path: { webhookId: w.id } }, body: {} }));
        put(out, notice(r.delivered ? 'ok' : 'warn', h('strong', { 'data-testid': 'test-outcome' }, r.delivered ? 'Test delivered' : 'Test not delivered'),
          ` · ${r.event} · HTTP ${r.response_status ?? '–'} · ${r.duration_ms} ms`, r.error ? ` · ${r.error}` : '',
          r.response_body_excerpt ? h('pre', null, r.response_body_excerpt) : null));
      }), 'send-test'),
      button('Rotate secret', () => act(async () => {
        if (!confirm('Rotate now? The old secret stops working immediately.')) return;
        const r = await ok(http.POST('/v1/webhooks/{webhookId}/rotate-secret', { params: { path: { webhookId: w.id } } }));
        put(out, secretOnce(`New secret for ${w.url}`, r.secret));
      }), 'rotate-secret'),
      button(w.is_active ? 'Pause' : 'Resume', () => act(async () => {
        await ok(http.PATCH('/v1/webhooks/{webhookId}', { params: { path: { webhookId: w.id } }, body: { is_active: !w.is_active } }));
        await load();
      })),
      w.role === 'backup' ? button('Make primary', () => act(async () => {
        await ok(http.PATCH('/v1/webhooks/{webhookId}', { params: { path: { webhookId: w.id } }, body: { role: 'primary' } }));
        await load();
      })) : null,
      button('Delete', () => act(async () => {
        if (!confirm(`Delete ${w.url}? Undelivered events to it are dropped.`)) return;
        await ok(http.DELETE('/v1/webhooks/{webhookId}', { params: { path: { webhookId: w.id } } }));
        put(logBox);
        await load();
      }), undefined, 'danger'),
      log);
  };

  const showLog = async (w: Schemas['WebhookEndpoint'], cursor?: string) => {
    const page = await ok(http.GET('/v1/webhooks/{webhookId}/deliveries', { params: { path: { webhookId: w.id }, query: { limit: 20, cursor } } }));
    const next = page.next_cursor ? button('Older', () => act(() => showLog(w, page.next_cursor ?? undefined))) : null;
    put(logBox, section(`Deliveries to ${w.url}`,
      table(['Event', 'State', 'Attempts', 'HTTP', 'Error', 'Next attempt', 'Created'], page.data.map((d) => [
        h('span', { title: d.event_id }, d.event), badge(d.state), String(d.attempt), d.response_status ?? '–', d.error ? short(d.error, 20) : '–',
        when(d.next_attempt_at), when(d.created_at),
      ]), 'deliveries'), next));
  };

  let add: HTMLElement | null = null;
  if (can('editor')) {
    const addOut = h('div');
    const form = h('form', { class: 'row', 'data-testid': 'webhook-form' },
      h('label', { class: 'grow' }, 'URL', h('input', { name: 'url', type: 'url', placeholder: 'https://example.com/hooks/energy', required: true })),
      h('label', null, 'Role', h('select', { name: 'role' }, h('option', { value: '' }, 'first free'), h('option', { value: 'primary' }, 'primary'), h('option', { value: 'backup' }, 'backup'))),
      h('button', { type: 'submit', class: 'primary', 'data-testid': 'add-webhook' }, 'Add endpoint'));
    busy(form, addOut, async () => {
      const role = field(form, 'role') as 'primary' | 'backup' | '';
      const w = await ok(http.POST('/v1/webhooks', { body: { url: field(form, 'url'), ...(role ? { role } : {}) } }));
      form.reset();
      if (!w.secret) throw new Error('The API answered without the signing secret.');
      put(addOut, secretOnce(`Signing secret for ${w.url}`, w.secret));
      await load();
    });
    add = section('Add an endpoint', form, addOut);
  }
  put(root, add, section('Endpoints', listBox, out), logBox);
  void load();
};

function button(label: string, onclick: () => void, testid?: string, kind?: string): HTMLButtonElement {
  const b = h('button', { type: 'button', class: `small ${kind ?? ''}`, 'data-testid': testid }, label);
  b.onclick = onclick;
  return b;
}
