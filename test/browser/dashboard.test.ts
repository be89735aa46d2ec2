/**
 * The dashboard in a real browser (Debian's chromium through playwright-core) against a real stack:
 * wallet sign-in through an injected TronWeb, a devnet deposit credited on the overview, an order placed
 * at the live price that goes active on chain, a webhook added and tested against an HTTPS receiver,
 * keys, members, address book, ledger and sign-ins, a batch watched to completion and another cancelled,
 * stats charts that agree with the orders, a viewer offered nothing it may not do, a POST without
 * the CSRF token refused, and every page at 375 px wide without sideways scrolling.
 * Screenshots of each page go to test/browser/screenshots/ (not committed).
 */
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { TronWeb } from 'tronweb';
import { startReceiver, type Receiver } from '../support/https-receiver';
import { sendTrx } from '../support/deposits';
import { contextWithWallet, launch, shot, until, walletFor, type TestWallet } from './support/browser';
import { startBrowserStack, type BrowserStack } from './support/stack';

let stack: BrowserStack;
let browser: Browser;
let owner: TestWallet;
let ownerContext: BrowserContext;
let page: Page;
let receiver: Receiver;
let viewerKey: { address: { base58: string }; privateKey: string };
const DEPOSIT_SUN = 100_000_000;

const text = (selector: string) => page.locator(selector).first().innerText();
const go = async (p: Page, hash: string) => {
  await p.goto(`${stack.base}/#/${hash}`);
  try {
    await p.waitForSelector('main#main', { timeout: 10_000 });
  } catch (err) {
    await shot(p, `failed-${hash}`);
    throw new Error(`page ${hash} not shown: ${(await p.locator('body').innerText()).slice(0, 300)}`);
  }
};

beforeAll(async () => {
  [stack, browser, receiver] = await Promise.all([startBrowserStack('browser'), launch(), startReceiver()]);
  // A fresh wallet: signing in creates its account (spec §4 POST /v1/session).
  viewerKey = await TronWeb.createAccount();
  owner = walletFor(stack.devnet.url, (await TronWeb.createAccount()).privateKey);
  ownerContext = await contextWithWallet(browser, owner);
  page = await ownerContext.newPage();
});

afterAll(async () => {
  await browser?.close();
  await receiver?.close();
  await stack?.stop();
});

test('the page is served at / without shadowing the API, and signs in through the injected wallet', async () => {
  const [health, missing, api404] = await Promise.all(['/healthz', '/nothing-here.js', '/v1/nothing'].map((p) => fetch(stack.base + p)));
  expect(health.status).toBe(200);
  const shell = await fetch(stack.base + '/');
  expect(shell.headers.get('content-type')).toContain('text/html');
  expect(shell.headers.get('content-security-policy')).toContain("default-src 'self'");
  expect(missing.status).toBe(404);
  expect(((await api404.json()) as any).error.slug).toBe('not_found');

  // First load: every script the page fetched, compressed, is far under the 300 KB budget; nothing from another origin.
  const loaded: { url: string; body: Buffer; type: string }[] = [];
  const collect = async (r: import('playwright-core').Response) => {
    loaded.push({ url: r.url(), body: await r.body().catch(() => Buffer.alloc(0)), type: r.request().resourceType() });
  };
  page.on('response', collect);
  await page.goto(stack.base + '/');
  await page.waitForSelector('[data-testid=sign-in]');
  page.off('response', collect);
  const scripts = loaded.filter((r) => r.type === 'script');
  expect(scripts.length).toBeGreaterThan(0);
  expect(loaded.every((r) => r.url.startsWith(stack.base))).toBe(true);
  expect(gzipSync(Buffer.concat(scripts.map((s) => s.body))).length).toBeLessThan(300 * 1024);
  await shot(page, '01-sign-in');
  await page.click('[data-testid=sign-in]');
  await page.waitForSelector('[data-testid=role]');
  expect(await text('[data-testid=role]')).toBe('owner');
  // The wallet signed the server's challenge verbatim, naming this address.
  expect(owner.signed).toHaveLength(1);
  expect(owner.signed[0]).toContain(owner.address);
  // The session survives a reload (cookie + GET /v1/session).
  await page.reload();
  await page.waitForSelector('[data-testid=role]');
});

test('overview: a devnet deposit to the shown address (QR code) is credited; the low-balance hint goes', async () => {
  await go(page, 'overview');
  await page.waitForSelector('[data-testid=deposit-address]');
  await page.waitForSelector('[data-testid=low-balance]');
  const address = await text('[data-testid=deposit-address]');
  expect(TronWeb.isAddress(address)).toBe(true);
  const qr = await page.$eval('[data-testid=deposit-qr]', (img) => ({ w: (img as HTMLImageElement).naturalWidth, src: (img as HTMLImageElement).src.slice(0, 15) }));
  expect(qr.src).toBe('data:image/gif;');
  expect(qr.w).toBeGreaterThan(100);

  const txid = await sendTrx(stack.devnet, 0, address, DEPOSIT_SUN);
  await until(page, 'balance credited', () => document.querySelector('[data-testid=balance]')?.textContent === '100\u00a0TRX', 45_000);
  expect(await text('[data-testid=available]')).toBe('100\u00a0TRX');
  expect(await page.$('[data-testid=low-balance]')).toBeNull();
  // The chain holds what the page says arrived.
  expect(await stack.devnet.post('/wallet/gettransactionbyid', { value: txid }).then((t: any) => t.txID)).toBe(txid);
  expect(await owner.tronWeb.trx.getBalance(address)).toBe(DEPOSIT_SUN);
  // The owner names the account; the title stays after a reload.
  await page.fill('[data-testid=rename-form] input[name=display_name]', 'Acme energy');
  await page.click('[data-testid=rename-form] button');
  // Untitled, the header shows the shortened owner address.
  expect(await text('[data-testid=account-name]')).toBe(`${owner.address.slice(0, 5)}…${owner.address.slice(-5)}`);
  await until(page, 'renamed', () => document.querySelector('[data-testid=account-title]')?.textContent === 'Acme energy'
    && document.querySelector('[data-testid=account-name]')?.textContent === 'Acme energy');
  await page.reload();
  await until(page, 'title kept', () => document.querySelector('[data-testid=account-title]')?.textContent === 'Acme energy');
  await shot(page, '02-overview');
});

test('orders: place an order at the live price, watch it go active, the hash is on chain and linked, CSV has it', async () => {
  await go(page, 'orders');
  await until(page, 'live price', () => /SUN per unit/.test(document.querySelector('[data-testid=live-price]')?.textContent ?? ''));
  const receiverAddress = stack.devnet.accounts.customers[1].address;
  await page.fill('input[name=receiver]', receiverAddress);
  await page.selectOption('select[name=tier]', '5m');
  expect(await text('[data-testid=live-price]')).toContain('2.6\u00a0TRX');
  await page.click('[data-testid=place-order]');
  const link = page.locator('.notice.ok a').first();
  await link.waitFor();
  const orderId = (await link.innerText()).trim();
  expect(orderId).toMatch(/^ord_/);
  await until(page, 'order listed', () => !!document.querySelector('[data-testid=orders] [data-order]'));
  await shot(page, '03-orders');

  await link.click();
  await page.waitForSelector('[data-testid=order-detail]');
  await until(page, 'order active', () => document.querySelector('[data-testid=order-detail] .badge')?.getAttribute('data-status') === 'active', 45_000);
  const detail = await text('[data-testid=order-detail]');
  expect(detail).toContain('dashboard');
  const href = (await page.locator('[data-testid=tx-link]').first().getAttribute('href'))!;
  expect(href.startsWith('https://nile.tronscan.org/#/transaction/')).toBe(true);
  const hash = href.split('/').pop()!;
  const tx: any = await stack.devnet.post('/wallet/gettransactionbyid', { value: hash });
  expect(tx.raw_data.contract[0].type).toBe('DelegateResourceContract');
  expect(TronWeb.address.fromHex(tx.raw_data.contract[0].parameter.value.receiver_address)).toBe(receiverAddress);
  await shot(page, '04-order-detail');

  // Reclaim from the page: the order ends `reclaimed` and the chain has the undelegation.
  page.once('dialog', (d) => void d.accept());
  await page.click('[data-testid=reclaim]');
  await until(page, 'order reclaimed', () => document.querySelector('[data-testid=order-detail] .badge')?.getAttribute('data-status') === 'reclaimed', 45_000);
  const reclaimHref = (await page.locator('[data-testid=tx-link]').last().getAttribute('href'))!;
  const undelegate: any = await stack.devnet.post('/wallet/gettransactionbyid', { value: reclaimHref.split('/').pop() });
  expect(undelegate.raw_data.contract[0].type).toBe('UnDelegateResourceContract');

  // CSV export with the session cookie, as the link downloads it.
  await go(page, 'orders');
  const csvHref = (await page.locator('[data-testid=csv-export]').getAttribute('href'))!;
  const csv = await page.evaluate(async (h) => (await fetch(h)).text(), csvHref);
  expect(csv.split('\n')[0]).toContain('source');
  expect(csv).toContain(orderId);
  expect(csv).toContain('dashboard');
});

test('webhooks: add an endpoint (secret shown once), send a test that reaches the receiver, rotate the secret', async () => {
  await go(page, 'webhooks');
  await page.fill('input[name=url]', receiver.url);
  await page.click('[data-testid=add-webhook]');
  await page.waitForSelector('[data-testid=secret]');
  const secret = await text('[data-testid=secret]');
  expect(secret.length).toBeGreaterThan(20);
  await until(page, 'endpoint listed', () => (document.querySelector('[data-testid=webhooks]')?.textContent ?? '').includes('primary'));
  await page.click('[data-testid=send-test]');
  await page.waitForSelector('[data-testid=test-outcome]');
  expect(await text('[data-testid=test-outcome]')).toBe('Test delivered');
  expect(receiver.requests).toHaveLength(1);
  expect(JSON.parse(receiver.requests[0].raw.toString()).test).toBe(true);
  await shot(page, '05-webhooks');

  page.once('dialog', (d) => void d.accept());
  await page.click('[data-testid=rotate-secret]');
  await until(page, 'new secret', () => (document.querySelector('[data-testid=webhook-result]')?.textContent ?? '').includes('New secret'));
  expect(await text('[data-testid=webhook-result] [data-testid=secret]')).not.toBe(secret);
  await page.click('text=Delivery log');
  await page.waitForSelector('[data-testid=deliveries]');
});

test('keys, members, address book, ledger and sign-ins', async () => {
  await go(page, 'keys');
  await page.fill('input[name=name]', 'bot');
  await page.click('[data-testid=create-key]');
  await page.waitForSelector('[data-testid=secret]');
  expect(await text('[data-testid=secret]')).toMatch(/^sk_/);
  await until(page, 'key listed', () => (document.querySelector('[data-testid=api-keys]')?.textContent ?? '').includes('bot'));
  await shot(page, '06-api-keys');

  await go(page, 'members');
  await page.fill('input[name=address]', viewerKey.address.base58);
  await page.selectOption('select[name=role]', 'viewer');
  await page.click('[data-testid=add-member]');
  await until(page, 'member listed', () => (document.querySelector('[data-testid=members]')?.textContent ?? '').includes('viewer'));
  await shot(page, '07-members');

  await go(page, 'addresses');
  await page.fill('input[name=label]', 'hot wallet');
  await page.fill('input[name=address]', stack.devnet.accounts.customers[1].address);
  await page.click('[data-testid=address-form] button');
  await until(page, 'entry listed', () => (document.querySelector('[data-testid=address-book]')?.textContent ?? '').includes('hot wallet'));
  await shot(page, '08-address-book');

  // 20 support credits at once, so the ledger has a second page (deposit + charge + 20 = 22 journals).
  const accountId = await page.evaluate(async () => ((await (await fetch('/v1/session')).json()) as any).account_id);
  const credits = await Promise.all(Array.from({ length: 20 }, (_, i) => stack.bus.submit({ type: 'balance.adjust', accountId, amountSun: BigInt(i + 1), memo: `page test ${i}` })));
  expect(credits.every((c) => c.outcome === 'applied')).toBe(true);
  await go(page, 'ledger');
  const rowsOf = () => page.$$eval('[data-testid=ledger] tbody tr', (trs) => trs.map((tr) => tr.textContent ?? ''));
  await until(page, 'ledger page 1', () => document.querySelectorAll('[data-testid=ledger] tbody tr').length === 20);
  const first = await rowsOf();
  await shot(page, '09-ledger');
  await page.click('[data-testid=ledger-next]');
  await until(page, 'ledger page 2', () => document.querySelectorAll('[data-testid=ledger] tbody tr').length === 2);
  const second = await rowsOf();
  expect(second.join()).toContain('deposit');
  expect(first.join() + second.join()).toContain('order_charge');
  expect(first.filter((r) => second.includes(r))).toEqual([]);
  expect(await page.locator('[data-testid=ledger-next]').isDisabled()).toBe(true);
  await page.click('[data-testid=ledger-prev]');
  await until(page, 'back on page 1', () => document.querySelectorAll('[data-testid=ledger] tbody tr').length === 20);
  expect(await rowsOf()).toEqual(first);
  // The export walks every page: 22 journals whose amounts add up to the balance.
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=ledger-export]')]);
  const exported = readFileSync((await download.path())!, 'utf8').trim().split('\r\n');
  expect(exported).toHaveLength(23);
  const column = exported[0].split(',').indexOf('amount_sun');
  const balance = await page.evaluate(async () => ((await (await fetch('/v1/balance')).json()) as any).balance_sun);
  expect(exported.slice(1).reduce((n, line) => n + BigInt(line.split(',')[column]), 0n)).toBe(BigInt(balance));

  await go(page, 'security');
  await until(page, 'sign-ins', () => (document.querySelectorAll('[data-testid=sign-ins] tbody tr').length ?? 0) >= 1);
  await shot(page, '10-security');
});

test('batches: paste receivers with defaults, watch every item complete on chain; a CSV batch is cancelled while it runs', async () => {
  const [r2, r3] = [stack.devnet.accounts.customers[2].address, stack.devnet.accounts.customers[3].address];
  await go(page, 'batches');
  await until(page, 'tiers loaded', () => (document.querySelector('[data-testid=batch-form] select[name=tier]') as HTMLSelectElement | null)?.options.length! > 0);
  // A typo is caught on the page before anything is sent.
  await page.fill('[data-testid=batch-receivers]', `${r2}\nTnot-an-address`);
  await until(page, 'line error', () => (document.querySelector('[data-testid=batch-preview]')?.textContent ?? '').includes('line 2: Not a TRON address'));
  await page.fill('[data-testid=batch-receivers]', `${r2}\n${r3},130000,1h`);
  await until(page, 'preview', () => document.querySelector('[data-testid=batch-preview]')?.textContent === '2 receiver(s) ready.');
  await page.selectOption('[data-testid=batch-form] select[name=tier]', '5m');
  await page.click('[data-testid=submit-batch]');
  await page.locator('[data-testid=batch-link]').waitFor();
  const batchId = (await text('[data-testid=batch-link]')).trim();
  expect(batchId).toMatch(/^bat_/);
  await until(page, 'batch listed', () => !!document.querySelector('[data-testid=batches] [data-batch]'));
  await shot(page, '13-batches');

  await page.click('[data-testid=batch-link]');
  await page.waitForSelector('[data-testid=batch-detail]');
  await until(page, 'batch completed', () => document.querySelector('[data-testid=batch-detail] .badge')?.getAttribute('data-status') === 'completed', 60_000);
  expect(await page.$eval('[data-testid=batch-detail] .progress', (e) => [e.getAttribute('data-done'), e.getAttribute('data-total')])).toEqual(['2', '2']);
  const rows = await page.$$eval('[data-testid=batch-items] tbody tr', (trs) => trs.map((tr) => tr.textContent ?? ''));
  expect(rows[0]).toContain('65\u00a0000 / 65\u00a0000 · 5m');
  expect(rows[1]).toContain('130\u00a0000 / 130\u00a0000 · 1h');
  expect(rows.join()).toContain('2.6\u00a0TRX');
  expect(rows.join()).toContain('7.8\u00a0TRX');
  await shot(page, '14-batch-detail');
  // The chain has each receiver's delegation, as the page's order links lead to.
  const batch = await page.evaluate(async (id) => (await fetch(`/v1/batches/${id}`)).json(), batchId);
  for (const [k, receiverAddress] of [r2, r3].entries()) {
    const item = batch.items[k];
    expect(item.delegate_hashes.length).toBeGreaterThan(0);
    const tx: any = await stack.devnet.post('/wallet/gettransactionbyid', { value: item.delegate_hashes[0] });
    expect(tx.raw_data.contract[0].type).toBe('DelegateResourceContract');
    expect(TronWeb.address.fromHex(tx.raw_data.contract[0].parameter.value.receiver_address)).toBe(receiverAddress);
    expect(await page.locator(`[data-testid=batch-items] a[href="#/orders/${item.order_ids[0]}"]`).count()).toBe(1);
  }

  // Eight fresh receivers from a CSV file (header line, activation needed): one runs at a time here, so most are still queued when cancelled.
  const fresh = await Promise.all(Array.from({ length: 8 }, () => TronWeb.createAccount()));
  await go(page, 'batches');
  await until(page, 'tiers loaded again', () => (document.querySelector('[data-testid=batch-form] select[name=tier]') as HTMLSelectElement | null)?.options.length! > 0);
  await page.setInputFiles('[data-testid=batch-file]', { name: 'receivers.csv', mimeType: 'text/csv', buffer: Buffer.from(`receiver,amount\n${fresh.map((a) => `${a.address.base58},65000`).join('\n')}\n`) });
  await until(page, 'csv preview', () => document.querySelector('[data-testid=batch-preview]')?.textContent === '8 receiver(s) ready.');
  await page.click('[data-testid=submit-batch]');
  await page.locator('[data-testid=batch-link]').waitFor();
  await page.click('[data-testid=batch-link]');
  await page.waitForSelector('[data-testid=cancel-batch]');
  page.once('dialog', (d) => void d.accept());
  await page.click('[data-testid=cancel-batch]');
  await until(page, 'cancel answered', () => / receiver\(s\) cancelled\./.test(document.querySelector('[data-testid=batch-result]')?.textContent ?? ''));
  const cancelled = Number((await text('[data-testid=batch-result]')).match(/(\d+) receiver/)![1]);
  expect(cancelled).toBeGreaterThan(0);
  await until(page, 'second batch settled', () => !['queued', 'processing'].includes(document.querySelector('[data-testid=batch-detail] .badge')?.getAttribute('data-status') ?? 'queued'), 60_000);
  const second = await page.evaluate(async () => (await fetch(`/v1/batches?limit=1`)).json());
  expect(second.data[0].summary.cancelled).toBe(cancelled);
  expect(await page.locator('[data-testid=batch-items] .badge[data-status=cancelled]').count()).toBe(cancelled);
  expect(await page.locator('[data-testid=cancel-batch]').count()).toBe(0);
  await shot(page, '15-batch-cancelled');
});

test('stats: totals, daily bars, weekday × hour heat map and top receivers agree with the orders', async () => {
  const orders = await page.evaluate(async () => {
    const all: any[] = [];
    let cursor: string | null = null;
    do {
      const p: any = await (await fetch(`/v1/orders?limit=200${cursor ? `&cursor=${cursor}` : ''}`)).json();
      all.push(...p.data);
      cursor = p.next_cursor;
    } while (cursor);
    return all;
  });
  expect(orders.length).toBeGreaterThanOrEqual(4);
  // The stats projection follows the log: reopen the page until it has counted every order.
  const deadline = Date.now() + 30_000;
  for (;;) {
    await go(page, 'stats');
    await page.waitForSelector('[data-testid=total-orders]');
    if ((await text('[data-testid=total-orders]')) === String(orders.length) || Date.now() > deadline) break;
    await page.waitForTimeout(500);
  }
  expect(await text('[data-testid=total-orders]')).toBe(String(orders.length));
  const bars = await page.$$eval('[data-testid=series-chart] rect.bar', (rs) => rs.map((r) => Number(r.getAttribute('data-value'))));
  expect([30, 31]).toContain(bars.length);
  expect(bars.reduce((a, b) => a + b, 0)).toBe(orders.length);
  const cells = await page.$$eval('[data-testid=heat-map] rect', (rs) => rs.map((r) => Number(r.getAttribute('data-count'))));
  expect(cells).toHaveLength(7 * 24);
  expect(cells.reduce((a, b) => a + b, 0)).toBe(orders.length);
  // Every order sits in this hour of the week by the browser's clock (or the one before, if the hour just turned).
  const cellOf = (d: Date) => ((d.getDay() + 6) % 7) * 24 + d.getHours();
  const now = new Date();
  const hours = new Set([cellOf(now), cellOf(new Date(now.getTime() - 3_600_000))]);
  expect([...hours].reduce((n, i) => n + cells[i], 0)).toBe(orders.length);
  const top = await page.$$eval('[data-testid=top-receivers] title', (ts) => ts.map((t) => t.textContent ?? ''));
  expect(top.some((t) => t.startsWith(stack.devnet.accounts.customers[1].address))).toBe(true);
  // Another series: energy per day sums to what the orders delivered.
  await page.selectOption('select[name=metric]', 'energy');
  const energy = await page.$$eval('[data-testid=series-chart] rect.bar', (rs) => rs.reduce((n, r) => n + Number(r.getAttribute('data-value')), 0));
  expect(energy).toBe(Number((await text('[data-testid=total-energy]')).replace(/\D/g, '')));
  await shot(page, '16-stats');
});

test('a viewer is offered nothing it may not do', async () => {
  const viewer = walletFor(stack.devnet.url, viewerKey.privateKey);
  const context = await contextWithWallet(browser, viewer);
  const vp = await context.newPage();
  await vp.goto(stack.base + '/');
  await vp.click('[data-testid=sign-in]');
  await vp.waitForSelector('[data-testid=role]');
  expect(await vp.locator('[data-testid=role]').innerText()).toBe('viewer');
  const editing: Record<string, string[]> = {
    orders: ['[data-testid=order-form]', '[data-testid=place-order]'],
    webhooks: ['[data-testid=webhook-form]', '[data-testid=send-test]', '[data-testid=rotate-secret]'],
    keys: ['[data-testid=key-form]', 'button:has-text("Revoke")'],
    members: ['[data-testid=member-form]', 'button:has-text("Remove")'],
    addresses: ['[data-testid=address-form]', 'button:has-text("Delete")'],
    batches: ['[data-testid=batch-form]', '[data-testid=submit-batch]'],
  };
  for (const [where, selectors] of Object.entries(editing)) {
    await go(vp, where);
    await vp.waitForSelector('table');
    await vp.waitForFunction(() => !document.body.textContent?.includes('Loading…'));
    for (const s of selectors) expect([where, s, await vp.locator(s).count()]).toEqual([where, s, 0]);
  }
  await go(vp, 'overview');
  await until(vp, 'account shown', () => document.querySelector('[data-testid=account-title]')?.textContent === 'Acme energy');
  expect(await vp.locator('[data-testid=rename-form]').count()).toBe(0);
  // What it may read is there: the owner's webhook and order.
  await go(vp, 'webhooks');
  await until(vp, 'webhook visible', () => (document.querySelector('[data-testid=webhooks]')?.textContent ?? '').includes('primary'));
  await shot(vp, '11-viewer-webhooks');
  await go(vp, 'orders');
  await until(vp, 'orders visible', () => !!document.querySelector('[data-testid=orders] [data-order]'));
  expect(await vp.locator('[data-testid=reclaim]').count()).toBe(0);
  // It reads batches and stats too, without a cancel button on a batch.
  await go(vp, 'batches');
  await until(vp, 'batches visible', () => !!document.querySelector('[data-testid=batches] [data-batch]'));
  await vp.click('[data-testid=batches] [data-batch]');
  await vp.waitForSelector('[data-testid=batch-detail]');
  expect(await vp.locator('[data-testid=cancel-batch]').count()).toBe(0);
  await go(vp, 'stats');
  await vp.waitForSelector('[data-testid=heat-map]');
  await context.close();
});

test('a POST without the CSRF token is refused (1014) and changes nothing', async () => {
  const result = await page.evaluate(async (receiverAddress) => {
    const post = (headers: Record<string, string>) => fetch('/v1/orders', {
      method: 'POST', headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ resource: 'energy', amount: 65000, tier: '5m', receiver: receiverAddress, client_order_id: 'no-csrf' }),
    });
    const refused = await post({});
    const wrong = await post({ 'x-csrf-token': 'forged' });
    const list = await fetch('/v1/orders?client_order_id=no-csrf').then((r) => r.json());
    return { refused: refused.status, code: (await refused.json()).error.code, wrong: wrong.status, listed: list.data.length };
  }, stack.devnet.accounts.customers[1].address);
  expect(result).toEqual({ refused: 403, code: 1014, wrong: 403, listed: 0 });
});

test('every page is usable at 375 px: nothing wider than the screen', async () => {
  await page.setViewportSize({ width: 375, height: 800 });
  const [orderId, batchId] = await page.evaluate(async () => [
    ((await (await fetch('/v1/orders?limit=1')).json()) as any).data[0].id, ((await (await fetch('/v1/batches?limit=1')).json()) as any).data[0].id]);
  for (const where of ['overview', 'orders', `orders/${orderId}`, 'batches', `batches/${batchId}`, 'ledger', 'stats', 'webhooks', 'keys', 'members', 'addresses', 'security']) {
    await go(page, where);
    await page.waitForFunction(() => !document.body.textContent?.includes('Loading…'), undefined, { timeout: 10_000 });
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    expect([where, width]).toEqual([where, 375]);
    if (['overview', 'orders', 'batches', 'stats'].includes(where)) await shot(page, `12-mobile-${where}`);
  }
  // The sign-in page too, in a browser with no session.
  const fresh = await browser.newContext({ viewport: { width: 375, height: 800 } });
  const signin = await fresh.newPage();
  await signin.goto(stack.base + '/');
  await signin.waitForSelector('[data-testid=sign-in]');
  expect(await signin.evaluate(() => document.documentElement.scrollWidth)).toBe(375);
  await fresh.close();
});

test('sign out everywhere ends every session of this wallet, in other browsers too', async () => {
  await page.setViewportSize({ width: 1280, height: 900 });
  const other = await contextWithWallet(browser, owner);
  const op = await other.newPage();
  await op.goto(stack.base + '/');
  await op.click('[data-testid=sign-in]');
  await op.waitForSelector('[data-testid=role]');

  await go(page, 'security');
  page.once('dialog', (d) => void d.accept());
  await page.click('[data-testid=sign-out-everywhere]');
  await page.waitForSelector('[data-testid=sign-in]');
  // The other browser's next call finds its session gone and shows sign-in.
  await op.goto(`${stack.base}/#/overview`);
  await op.waitForSelector('[data-testid=sign-in]', { timeout: 10_000 });
  const status = await op.evaluate(async () => (await fetch('/v1/session')).status);
  expect(status).toBe(401);
  await other.close();
});
