/** Overview: balance, available, reserved, the deposit address with a QR code, a low-balance hint. */
import qrcode from 'qrcode-generator';
import { api } from '../api';
import { h, put } from '../dom';
import { trx, usdt } from '../format';
import { copyButton, errorText, notice, section } from '../ui';
import type { Page } from '../main';

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
  put(root, section('Balance', balanceBox, hint), section('Deposit', depositBox));

  const load = async () => {
    try {
      const [b, prices] = await Promise.all([api('GET', '/v1/balance'), api('GET', '/v1/prices')]);
      put(balanceBox,
        stat('Balance', trx(b.balance_sun), 'balance'),
        stat('Available', trx(b.available_sun), 'available'),
        stat('Reserved', trx(b.reserved_sun), 'reserved'),
        Number(b.balance_usdt) ? stat('USDT held', usdt(b.balance_usdt), 'usdt') : null);
      const energy = (prices.data as any[]).filter((r) => r.resource === 'energy' && r.available).sort((x, y) => x.price_sun_per_unit - y.price_sun_per_unit)[0];
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
      const d = await api('GET', '/v1/deposit-addresses');
      const trxRow = (d.data as any[]).find((r) => r.currency === 'TRX') ?? d.data[0];
      const usdtRow = (d.data as any[]).find((r) => r.currency === 'USDT');
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

function stat(label: string, value: string, id: string): HTMLElement {
  return h('div', { class: 'stat' }, h('div', { class: 'label' }, label), h('div', { class: 'value', 'data-testid': id }, value));
}
