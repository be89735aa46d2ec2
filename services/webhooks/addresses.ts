/**
 * Classification of IP addresses a webhook may (not) be delivered to. Works on the 16 bytes of an
 * address, so every IPv6 form that embeds an IPv4 address (mapped, translated, compatible, NAT64, 6to4,
 * Teredo, ISATAP) is judged by the IPv4 address it carries.
 */
import { isIP } from 'node:net';

export type AddressClass =
  | 'public' | 'loopback' | 'private' | 'link_local' | 'metadata' | 'cgnat' | 'multicast' | 'reserved' | 'unspecified';

type Range = { prefix: number[]; bits: number; cls: AddressClass };

const v4 = (text: string, bits: number, cls: AddressClass): Range => ({ prefix: text.split('.').map(Number), bits, cls });

// Most specific first: the first match decides.
const ipv4Ranges: Range[] = [
  v4('169.254.169.254', 32, 'metadata'),
  v4('0.0.0.0', 8, 'unspecified'),
  v4('10.0.0.0', 8, 'private'),
  v4('100.64.0.0', 10, 'cgnat'),
  v4('127.0.0.0', 8, 'loopback'),
  v4('169.254.0.0', 16, 'link_local'),
  v4('172.16.0.0', 12, 'private'),
  v4('192.0.0.0', 24, 'reserved'),
  v4('192.0.2.0', 24, 'reserved'),
  v4('192.88.99.0', 24, 'reserved'),
  v4('192.168.0.0', 16, 'private'),
  v4('198.18.0.0', 15, 'reserved'),
  v4('198.51.100.0', 24, 'reserved'),
  v4('203.0.113.0', 24, 'reserved'),
  v4('224.0.0.0', 4, 'multicast'),
  v4('240.0.0.0', 4, 'reserved'),
];

const v6 = (text: string, bits: number, cls: AddressClass): Range => ({ prefix: [...ipv6Bytes(text)], bits, cls });

/** The 16 bytes of a valid IPv6 address (zone id ignored, trailing dotted quad allowed). */
export function ipv6Bytes(text: string): Uint8Array {
  let s = text.split('%')[0];
  const dotted = s.match(/(\d+\.\d+\.\d+\.\d+)$/);
  if (dotted) {
    const [a, b, c, d] = dotted[1].split('.').map(Number);
    s = s.slice(0, -dotted[1].length) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = s.includes('::') ? s.split('::') : [s, undefined];
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = tail === undefined ? h : [...h, ...Array(8 - h.length - t.length).fill('0'), ...t];
  const out = new Uint8Array(16);
  groups.forEach((g, i) => {
    const n = parseInt(g, 16);
    out[2 * i] = n >> 8;
    out[2 * i + 1] = n & 0xff;
  });
  return out;
}

const ipv6Ranges: Range[] = [
  v6('fd00:ec2::254', 128, 'metadata'),
  v6('::', 128, 'unspecified'),
  v6('::1', 128, 'loopback'),
  v6('::', 96, 'reserved'), // IPv4-compatible (deprecated)
  v6('100::', 64, 'reserved'), // discard
  v6('2001:db8::', 32, 'reserved'), // documentation
  v6('2001::', 23, 'reserved'), // IETF protocol assignments, Teredo
  v6('fc00::', 7, 'private'), // unique local
  v6('fec0::', 10, 'private'), // site-local (deprecated)
  v6('fe80::', 10, 'link_local'),
  v6('ff00::', 8, 'multicast'),
];

function matches(bytes: ArrayLike<number>, range: Range): boolean {
  let bits = range.bits;
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if ((bytes[i] & mask) !== ((range.prefix[i] ?? 0) & mask)) return false;
  }
  return true;
}

function classifyV4(bytes: ArrayLike<number>): AddressClass {
  return ipv4Ranges.find((r) => matches(bytes, r))?.cls ?? 'public';
}

const RANK: Record<AddressClass, number> = {
  public: 0, reserved: 1, multicast: 2, cgnat: 3, private: 4, link_local: 5, loopback: 6, unspecified: 7, metadata: 8,
};

/** The most dangerous of several classes (an address is only as safe as everything it may reach). */
function worst(classes: AddressClass[]): AddressClass {
  return classes.reduce((a, b) => (RANK[b] > RANK[a] ? b : a), 'public');
}

const eq = (b: Uint8Array, from: number, bytes: number[]) => bytes.every((x, i) => b[from + i] === x);
const zero = (b: Uint8Array, from: number, to: number) => b.slice(from, to).every((x) => x === 0);
const pick = (b: Uint8Array, ...at: number[]) => at.map((i) => b[i]);

/**
 * Every IPv4 address an IPv6 address may carry, by the forms that reach an IPv4 host: IPv4-mapped
 * (::ffff:0:0/96), IPv4-translated (::ffff:0:0:0/96), IPv4-compatible (::/96), NAT64 well-known
 * (64:ff9b::/96) and local-use (64:ff9b:1::/48, where the operator picks any RFC 6052 layout, so every
 * layout is a candidate), 6to4 (2002::/16), Teredo (2001::/32: server, and the client XOR ffffffff) and
 * ISATAP interface ids (::0:5efe:a.b.c.d, ::200:5efe:a.b.c.d). `translated` is true for the forms whose
 * IPv6 prefix means nothing but "the IPv4 inside", so the IPv4 alone decides.
 */
export function embeddedIpv4(b: Uint8Array): { candidates: number[][]; translated: boolean } | null {
  const last4 = pick(b, 12, 13, 14, 15);
  if (zero(b, 0, 10) && eq(b, 10, [0xff, 0xff])) return { candidates: [last4], translated: true };
  if (zero(b, 0, 8) && eq(b, 8, [0xff, 0xff]) && zero(b, 10, 12)) return { candidates: [last4], translated: true };
  if (zero(b, 0, 12) && !zero(b, 12, 15)) return { candidates: [last4], translated: true };
  if (eq(b, 0, [0x00, 0x64, 0xff, 0x9b]) && zero(b, 4, 12)) return { candidates: [last4], translated: true };
  if (eq(b, 0, [0x00, 0x64, 0xff, 0x9b, 0x00, 0x01])) {
    // RFC 6052 layouts for prefixes /48, /56, /64 and /96 inside the local-use /48 (byte 8 is the u octet).
    return { candidates: [pick(b, 6, 7, 9, 10), pick(b, 7, 9, 10, 11), pick(b, 9, 10, 11, 12), last4], translated: true };
  }
  if (eq(b, 0, [0x20, 0x02])) return { candidates: [pick(b, 2, 3, 4, 5)], translated: false };
  if (eq(b, 0, [0x20, 0x01, 0x00, 0x00])) return { candidates: [pick(b, 4, 5, 6, 7), last4.map((x) => x ^ 0xff)], translated: false };
  if ((b[8] === 0x00 || b[8] === 0x02) && eq(b, 9, [0x00, 0x5e, 0xfe])) return { candidates: [last4], translated: false };
  return null;
}

/** Which kind of address this is; throws on text that is not an IP address. */
export function classifyAddress(address: string): AddressClass {
  const family = isIP(address.split('%')[0]);
  if (family === 4) return classifyV4(address.split('.').map(Number));
  if (family !== 6) throw new Error(`not an IP address: ${address}`);
  const bytes = ipv6Bytes(address);
  const outer = ipv6Ranges.find((r) => matches(bytes, r))?.cls ?? 'public';
  if (zero(bytes, 0, 15) && (bytes[15] === 0 || bytes[15] === 1)) return outer; // :: and ::1
  const inner = embeddedIpv4(bytes);
  if (!inner) return outer;
  const carried = worst(inner.candidates.map(classifyV4));
  return inner.translated ? carried : worst([carried, outer]);
}

/** Whether a delivery may connect to this address. Private targets (tests, local runs) open loopback and private ranges only. */
export function addressAllowed(address: string, allowPrivate: boolean): { ok: true } | { ok: false; cls: AddressClass } {
  const cls = classifyAddress(address);
  if (cls === 'public' || (allowPrivate && (cls === 'loopback' || cls === 'private'))) return { ok: true };
  return { ok: false, cls };
}
