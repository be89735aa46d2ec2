/**
 * Classification of IP addresses a webhook may (not) be delivered to. Works on the 16 bytes of an
 * address, so IPv4-mapped, NAT64 and 6to4 forms are judged by the IPv4 address they carry.
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

/** The IPv4 address an IPv6 address carries, for the forms that reach an IPv4 host. */
function embeddedIpv4(b: Uint8Array): number[] | null {
  const zero = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  if (zero(0, 10) && b[10] === 0xff && b[11] === 0xff) return [...b.slice(12)]; // ::ffff:a.b.c.d
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zero(4, 12)) return [...b.slice(12)]; // 64:ff9b::/96
  if (b[0] === 0x20 && b[1] === 0x02) return [...b.slice(2, 6)]; // 6to4 2002::/16
  return null;
}

/** Which kind of address this is; throws on text that is not an IP address. */
export function classifyAddress(address: string): AddressClass {
  const family = isIP(address.split('%')[0]);
  if (family === 4) return classifyV4(address.split('.').map(Number));
  if (family !== 6) throw new Error(`not an IP address: ${address}`);
  const bytes = ipv6Bytes(address);
  const inner = embeddedIpv4(bytes);
  if (inner) return classifyV4(inner);
  return ipv6Ranges.find((r) => matches(bytes, r))?.cls ?? 'public';
}

/** Whether a delivery may connect to this address. Private targets (tests, local runs) open loopback and private ranges only. */
export function addressAllowed(address: string, allowPrivate: boolean): { ok: true } | { ok: false; cls: AddressClass } {
  const cls = classifyAddress(address);
  if (cls === 'public' || (allowPrivate && (cls === 'loopback' || cls === 'private'))) return { ok: true };
  return { ok: false, cls };
}
