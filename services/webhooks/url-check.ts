/**
 * Webhook URL checks (spec section 4, webhooks rule 2), run on create, on every edit and again before
 * every delivery: https only, at most 2,048 characters, no credentials, and every address the host
 * resolves to must be allowed. The delivery then connects to the checked address only (see sender.ts),
 * so a DNS answer that changes between the check and the connection cannot reach inside.
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { addressAllowed, type AddressClass } from './addresses';

export const MAX_URL_LENGTH = 2048;

export type UrlRejectReason =
  | 'invalid_url' | 'not_https' | 'too_long' | 'credentials' | 'localhost' | 'forbidden_address';

export interface UrlRejection {
  ok: false;
  reason: UrlRejectReason;
  message: string;
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to every address it has (the real resolver unless a test injects one). */
export type Resolver = (host: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));

/** How long the sender reuses a host's DNS answer (real ms): short, so a changed record is followed quickly. */
export const DNS_CACHE_MS = 5_000;

/**
 * A resolver that answers each host from its last answer for `ttlMs` (one lookup in flight per host;
 * failures are not kept). Only the lookup is saved: checkTarget still judges every address on every
 * attempt, and the connection still goes to the checked address.
 */
export function cachingResolver(resolve: Resolver, ttlMs = DNS_CACHE_MS, now: () => number = () => performance.now(), maxHosts = 10_000): Resolver {
  const answers = new Map<string, { at: number; answer: Promise<ResolvedAddress[]> }>();
  return (host) => {
    const key = host.toLowerCase();
    const hit = answers.get(key);
    if (hit && now() - hit.at < ttlMs) return hit.answer;
    if (answers.size >= maxHosts) answers.clear();
    const answer = resolve(host);
    const entry = { at: now(), answer };
    answers.set(key, entry);
    answer.catch(() => {
      if (answers.get(key) === entry) answers.delete(key);
    });
    return answer;
  };
}

const reject = (reason: UrlRejectReason, message: string): UrlRejection => ({ ok: false, reason, message });

/** The checks that need no network: form, scheme, length, credentials. */
export function checkUrlForm(text: string, allowPrivate: boolean): { ok: true; url: URL; host: string } | UrlRejection {
  if (text.length > MAX_URL_LENGTH) return reject('too_long', `The URL is longer than ${MAX_URL_LENGTH} characters.`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return reject('invalid_url', 'The URL cannot be parsed.');
  }
  if (url.href.length > MAX_URL_LENGTH) return reject('too_long', `The URL is longer than ${MAX_URL_LENGTH} characters.`);
  if (url.protocol !== 'https:') return reject('not_https', 'Only https URLs are accepted.');
  if (url.username !== '' || url.password !== '') return reject('credentials', 'The URL must not carry credentials.');
  // The WHATWG parser has already turned 0x7f.1, 2130706433 and friends into dotted quads.
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  if (!host) return reject('invalid_url', 'The URL has no host.');
  const bare = host.toLowerCase().replace(/\.$/, '');
  if (!allowPrivate && (bare === 'localhost' || bare.endsWith('.localhost'))) return reject('localhost', 'Localhost cannot be registered.');
  return { ok: true, url, host };
}

/** Every address must pass: one private answer among public ones is enough to refuse. */
export function checkAddresses(addresses: ResolvedAddress[], allowPrivate: boolean): { ok: true } | UrlRejection {
  if (addresses.length === 0) return reject('forbidden_address', 'The host resolves to no address.');
  for (const a of addresses) {
    const verdict = addressAllowed(a.address, allowPrivate);
    if (!verdict.ok) return reject('forbidden_address', `The host resolves to a ${describe(verdict.cls)} address.`);
  }
  return { ok: true };
}

function describe(cls: AddressClass): string {
  return cls.replace('_', '-').replace('cgnat', 'carrier-grade NAT');
}

export interface CheckedTarget {
  ok: true;
  url: URL;
  /** The host name as written (TLS server name and Host header). */
  host: string;
  /** The checked address the connection must go to. */
  address: ResolvedAddress;
}

/**
 * The one refusal of a host name, whatever its DNS said: a name that does not resolve and one that
 * resolves inside are told apart by nobody, or the check is an oracle of the service's internal DNS.
 */
const NAME_REFUSAL = 'The host does not resolve to public addresses only.';

/** The full check: form, then resolution, then every resolved address. */
export async function checkTarget(text: string, options: { allowPrivate: boolean; resolve?: Resolver }): Promise<CheckedTarget | UrlRejection> {
  const form = checkUrlForm(text, options.allowPrivate);
  if (!form.ok) return form;
  const family = isIP(form.host);
  let addresses: ResolvedAddress[];
  if (family !== 0) {
    addresses = [{ address: form.host, family: family as 4 | 6 }];
    const verdict = checkAddresses(addresses, options.allowPrivate);
    if (!verdict.ok) return verdict;
  } else {
    try {
      addresses = await (options.resolve ?? systemResolver)(form.host);
    } catch {
      addresses = [];
    }
    if (!checkAddresses(addresses, options.allowPrivate).ok) return reject('forbidden_address', NAME_REFUSAL);
  }
  return { ok: true, url: form.url, host: form.host, address: addresses[0] };
}
