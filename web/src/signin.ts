/**
 * Wallet sign-in (spec §4 Session): the page asks the injected TronLink-style `window.tronWeb` for its
 * address and to signMessageV2 the challenge's message verbatim; the signature goes to POST /v1/session.
 * No private key ever touches the page.
 */
import { http, ok } from './api';
import { h } from './dom';
import type { Session } from './state';
import { busy, notice } from './ui';

interface InjectedTronWeb {
  ready?: boolean;
  defaultAddress?: { base58?: string | false };
  trx: { signMessageV2(message: string): Promise<string> | string };
}

function injected(): InjectedTronWeb | null {
  const tw = (window as any).tronWeb as InjectedTronWeb | undefined;
  return tw && tw.trx && typeof tw.trx.signMessageV2 === 'function' ? tw : null;
}

export async function signInWithWallet(): Promise<Session> {
  const tw = injected();
  if (!tw) throw new Error('No TRON wallet found in this browser. Install or unlock TronLink, then try again.');
  const address = tw.defaultAddress?.base58;
  if (!address) throw new Error('The wallet is locked or has no account selected. Unlock it, then try again.');
  const challenge = await ok(http.POST('/v1/accounts/challenge', { body: { address, purpose: 'login' } }));
  const signature = await tw.trx.signMessageV2(challenge.message);
  return ok(http.POST('/v1/session', { body: { address, nonce: challenge.nonce, signature } }));
}

export function signInPage(root: HTMLElement, done: (s: Session) => void): void {
  const out = h('div');
  const form = h('form', { class: 'signin card' },
    h('h1', null, 'Energy rental dashboard'),
    h('p', null, 'Sign in with your TRON wallet. The wallet signs a one-time message; nothing is sent on chain and no key leaves the wallet.'),
    h('button', { type: 'submit', class: 'primary', 'data-testid': 'sign-in' }, 'Sign in with wallet'),
    out);
  busy(form, out, async () => {
    const session = await signInWithWallet();
    done(session);
  });
  root.replaceChildren(form);
  if (!injected()) out.replaceChildren(notice('info', 'No wallet detected yet. TronLink injects one when it is unlocked.'));
}
