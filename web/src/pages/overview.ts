/**
 * Overview: balance, available, reserved, the deposit address with a QR code, a low-balance hint, and the
 * account's title (owners rename it: PATCH /v1/account).
 */
import qrcode from 'qrcode-generator';
import { http, ok, type Schemas } from '../api';
import { field, h, put } from '../dom';
import { short, trx, usdt } from '../format';
import { accountName, can, state } from '../state';
import { busy, copyButton, errorText, notice, section, stat } from '../ui';
import type { Page } from '../page';

/** A transfer of USDT costs about this much energy; the hint says how many such orders the balance pays. */
const TYPICAL_ENERGY = 65_000;

function qrImage(text: string): HTMLImageElement {
  const qr = qrcode(0, 'M');
  qr.addData(text);
  qr.make();
  return h('img', { src: qr.createDataURL(6, 2), alt: `QR code of ${text}`, class: 'qr', width: 180, height: 180, 'data-testid': 'deposit-qr' });
}

export const overviewPage: Page = (root) => {
  const balanceBox = h('div', { class: 'stats' }, 'Loading…');
  const hint = h('div');
  const depositBox = h('div', null, 'Loading…');
  put(root, section('Balance', balanceBox, hint), section('Deposit', depositBox), accountSection());

  const load = async () => {
    try {
      const [b, prices] = await Promise.all([ok(http.GET('/v1/balance')), ok(http.GET('/v1/prices'))]);
      put(balanceBox,
        stat('Balance', trx(b.balance_sun), 'balance'),
        stat('Available', trx(b.available_sun), 'available'),
        stat('Reserved', trx(b.reserved_sun), 'reserved'),
        Number(b.balance_usdt) ? stat('USDT held', usdt(b.balance_usdt), 'usdt') : null);
      const energy = prices.data.filter((r) => r.resource === 'energy' && r.available).sort((x, y) => Number(x.price_sun_per_unit) - Number(y.price_sun_per_unit))[0];
      const perOrder = energy ? BigInt(energy.price_sun_per_unit) * BigInt(TYPICAL_ENERGY) : null;
      const left = perOrder ? BigInt(b.available_sun) / perOrder : null;
      put(hint, left !== null && left < 3n
        ? notice('warn', h('strong', { 'data-testid': 'low-balance' }, 'Low balance. '),
          `Available pays for ${left.toString()} order(s) of ${TYPICAL_ENERGY.toLocaleString('en-US')} energy at ${trx(perOrder!)} each (tier ${energy.tier}). Deposit TRX or USDT to the address below.`)
        : null);
    } catch (err) {
      put(balanceBox, notice('error', errorText(err)));
    }
  };

  const loadDeposit = async () => {
    try {
      const d = await ok(http.GET('/v1/deposit-addresses'));
      const trxRow = d.data.find((r) => r.currency === 'TRX') ?? d.data[0];
      const usdtRow = d.data.find((r) => r.currency === 'USDT');
      put(depositBox,
        h('div', { class: 'deposit' },
          qrImage(trxRow.address),
          h('div', null,
            h('p', null, 'Send TRX or USDT (TRC-20) to this address; it belongs to your account alone.'),
            h('p', { class: 'addr' }, h('code', { 'data-testid': 'deposit-address' }, trxRow.address), ' ', copyButton(trxRow.address)),
            h('p', { class: 'muted' }, `Credited after ${trxRow.confirmations_required} confirmations.`,
              usdtRow?.rate_now ? ` USDT is credited as TRX at about ${usdtRow.rate_now.trx_per_usdt} TRX per USDT, less ${(usdtRow.spread_bps ?? 0) / 100} %.` : ''),
            usdtRow?.min ? h('p', { class: 'muted' }, `USDT below ${usdtRow.min} is held; above ${usdtRow.max} waits for review.`) : null)));
    } catch (err) {
      put(depositBox, notice('error', errorText(err)));
    }
  };

  void load();
  void loadDeposit();
  // The balance moves with deposits and orders: refresh it while the page is open.
  const timer = setInterval(load, 5000);
  return () => clearInterval(timer);
};

/** The account's title (the shortened owner address when none is set), its id and status; owners rename it. */
function accountSection(): HTMLElement {
  const box = h('div', null, 'Loading…');
  const out = h('div');
  const draw = (a: Schemas['Account']) => {
    const title = a.display_name ?? short(a.owner_address, 5);
    let rename: HTMLElement | null = null;
    if (can('owner')) {
      const form = h('form', { class: 'row', 'data-testid': 'rename-form' },
        h('label', { class: 'grow' }, 'Account title', h('input', { name: 'display_name', maxlength: 64, value: a.display_name ?? '', placeholder: short(a.owner_address, 5) })),
        h('button', { type: 'submit', class: 'small' }, 'Save'));
      busy(form, out, async () => {
        const name = field(form, 'display_name');
        const updated = await ok(http.PATCH('/v1/account', { body: { display_name: name === '' ? null : name } }));
        if (state.session) {
          state.session.display_name = updated.display_name ?? null;
          document.querySelector('[data-testid=account-name]')?.replaceChildren(accountName(state.session));
        }
        draw(updated);
        put(out, notice('ok', 'Saved.'));
      });
      rename = form;
    }
    put(box, h('dl', { class: 'fields' },
      h('dt', null, 'Title'), h('dd', { 'data-testid': 'account-title' }, title),
      h('dt', null, 'Account'), h('dd', null, h('code', null, a.id)),
      h('dt', null, 'Status'), h('dd', null, a.status),
      h('dt', null, 'Owner'), h('dd', null, h('code', null, a.owner_address ?? '–'))), rename);
  };
  ok(http.GET('/v1/account')).then(draw, (err) => put(box, notice('error', errorText(err))));
  return section('Account', box, out);
}
