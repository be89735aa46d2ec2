/**
 * Where transaction hashes link to: a URL prefix the user can set (Security page), kept in this browser;
 * the default follows the session's network.
 */
import { state } from './state';

const KEY = 'explorer_tx_url';
const defaults = { mainnet: 'https://tronscan.org/#/transaction/', nile: 'https://nile.tronscan.org/#/transaction/' } as const;

export function explorerPrefix(): string {
  return localStorage.getItem(KEY) || defaults[state.session?.network ?? 'mainnet'];
}

export function setExplorerPrefix(url: string): void {
  if (url) localStorage.setItem(KEY, url);
  else localStorage.removeItem(KEY);
}

/** Only http(s) prefixes are accepted, so a stored value can never become a script URL. */
export function validExplorer(url: string): boolean {
  return url === '' || /^https?:\/\/[^\s]+$/i.test(url);
}

export function txUrl(hash: string): string {
  const prefix = explorerPrefix();
  return /^https?:\/\//i.test(prefix) ? prefix + encodeURIComponent(hash) : defaults.mainnet + encodeURIComponent(hash);
}
