/** Small shared pieces of the pages: headings, notices, tables, copy buttons, the one-time secret box. */
import { h, type Child } from './dom';
import { EnergyApiError } from './api';

export function section(title: string, ...children: Child[]): HTMLElement {
  return h('section', { class: 'card' }, h('h2', null, title), ...children);
}

export function notice(kind: 'info' | 'warn' | 'error' | 'ok', ...children: Child[]): HTMLElement {
  return h('div', { class: `notice ${kind}`, role: kind === 'error' ? 'alert' : 'status' }, ...children);
}

export function errorText(err: unknown): string {
  if (err instanceof EnergyApiError) return `${err.reason}${err.code ? ` (${err.code} ${err.slug})` : ''}`;
  return err instanceof Error ? err.message : String(err);
}

/** A table that scrolls sideways inside its card on narrow screens instead of widening the page. */
export function table(headers: string[], rows: Child[][], testid?: string): HTMLElement {
  return h('div', { class: 'table-wrap' },
    h('table', { 'data-testid': testid },
      h('thead', null, h('tr', null, headers.map((t) => h('th', null, t)))),
      h('tbody', null, rows.length ? rows.map((r) => h('tr', null, r.map((c) => h('td', null, c)))) : h('tr', null, h('td', { colspan: headers.length, class: 'empty' }, 'Nothing yet.')))));
}

export function copyButton(text: string, label = 'Copy'): HTMLButtonElement {
  const b = h('button', { type: 'button', class: 'small' }, label);
  b.onclick = async () => {
    try {
      await navigator.clipboard.writeText(text);
      b.textContent = 'Copied';
    } catch {
      b.textContent = 'Select and copy';
    }
    setTimeout(() => (b.textContent = label), 1500);
  };
  return b;
}

/** A secret the API returns once: shown here, never stored by the page. */
export function secretOnce(title: string, secret: string): HTMLElement {
  return notice('warn', h('strong', null, title), h('p', null, 'Shown once. Copy it now; it cannot be shown again.'),
    h('code', { class: 'secret', 'data-testid': 'secret' }, secret), ' ', copyButton(secret));
}

/** Runs a form's action with its button disabled and reports the failure next to it. */
export function busy(form: HTMLFormElement, out: HTMLElement, action: () => Promise<void>): void {
  form.onsubmit = async (ev) => {
    ev.preventDefault();
    const buttons = form.querySelectorAll('button');
    buttons.forEach((b) => (b.disabled = true));
    out.replaceChildren();
    try {
      await action();
    } catch (err) {
      out.replaceChildren(notice('error', errorText(err)));
    } finally {
      buttons.forEach((b) => (b.disabled = false));
    }
  };
}

export function badge(status: string): HTMLElement {
  return h('span', { class: `badge s-${status}`, 'data-status': status }, status);
}

/** A small button that asks first (when `ask` is set), runs `action`, and reports a failure into `out`. */
export function actionButton(label: string, ask: string | null, out: HTMLElement, action: () => Promise<void>, kind = 'danger'): HTMLButtonElement {
  const b = h('button', { type: 'button', class: `small ${kind}` }, label);
  b.onclick = async () => {
    if (ask && !confirm(ask)) return;
    b.disabled = true;
    try {
      await action();
    } catch (err) {
      out.replaceChildren(notice('error', errorText(err)));
    } finally {
      b.disabled = false;
    }
  };
  return b;
}

/** One labelled figure in a `.stats` grid. */
export function stat(label: string, value: string, testid: string): HTMLElement {
  return h('div', { class: 'stat' }, h('div', { class: 'label' }, label), h('div', { class: 'value', 'data-testid': testid }, value));
}
