/**
 * Debian's chromium (/usr/bin/chromium, installed by infra/browser/ensure-chromium.sh) driven by
 * playwright-core, and a test wallet injected as a TronLink-style `window.tronWeb`: the page calls
 * `tronWeb.trx.signMessageV2(message)`, which crosses to Node where a real TronWeb signs with a devnet
 * key. The key never enters the page.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { TronWeb } from 'tronweb';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const SHOTS = path.resolve(__dirname, '../screenshots');

export function launch(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
}

export interface TestWallet {
  address: string;
  tronWeb: TronWeb;
  /** Messages the page asked the wallet to sign. */
  signed: string[];
}

export function walletFor(fullHost: string, privateKey: string): TestWallet {
  const tronWeb = new TronWeb({ fullHost, privateKey });
  return { address: tronWeb.defaultAddress.base58 as string, tronWeb, signed: [] };
}

/** A browser context whose pages see `wallet` as window.tronWeb. */
export async function contextWithWallet(browser: Browser, wallet: TestWallet, viewport = { width: 1280, height: 900 }): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport });
  await context.exposeBinding('__testWalletSign', async (_source, message: string) => {
    wallet.signed.push(message);
    return wallet.tronWeb.trx.signMessageV2(message);
  });
  await context.addInitScript((address: string) => {
    const w = window as any;
    w.tronWeb = { ready: true, defaultAddress: { base58: address }, trx: { signMessageV2: (m: string) => w.__testWalletSign(m) } };
  }, wallet.address);
  return context;
}

export async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
}

/** Waits until `fn` (run in the page) returns true. */
export async function until(page: Page, what: string, fn: () => boolean, timeout = 30_000): Promise<void> {
  try {
    await page.waitForFunction(fn, undefined, { timeout, polling: 200 });
  } catch (err) {
    throw new Error(`${what}: not seen within ${timeout} ms (${(err as Error).message.split('\n')[0]})`);
  }
}
