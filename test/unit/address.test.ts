/** The service's address test accepts exactly what TronWeb's isAddress accepts (the rule it replaced). */
import { randomBytes } from 'node:crypto';
import { TronWeb } from 'tronweb';
import { isTronAddress as isTronAddressFast } from '../../services/chain/address';

/** The reference: TronWeb's own check, behind the mainnet-style shape (as the service used it before). */
function isTronAddress(value: unknown): value is string {
  return typeof value === 'string' && /^T[1-9A-HJ-NP-Za-km-z]{33}$/.test(value) && TronWeb.isAddress(value);
}

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

test('real addresses pass; every one-character change, truncation and stray character fails as with TronWeb', () => {
  const addresses = Array.from({ length: 40 }, () => TronWeb.address.fromHex(`41${randomBytes(20).toString('hex')}`));
  for (const a of addresses) {
    expect(isTronAddressFast(a)).toBe(true);
    for (let k = 1; k < a.length; k += 3) {
      const changed = a.slice(0, k) + ALPHABET[(ALPHABET.indexOf(a[k]) + 1 + k) % 58] + a.slice(k + 1);
      expect(isTronAddressFast(changed)).toBe(isTronAddress(changed));
    }
    for (const odd of [a.slice(0, 33), `${a}1`, `${a.slice(0, 33)}0`, `${a.slice(0, 33)}é`, a.toLowerCase(), `A${a.slice(1)}`]) {
      expect(isTronAddressFast(odd)).toBe(isTronAddress(odd));
    }
    // Asked again (now from the kept valid addresses): still valid, and its one-character changes still not.
    expect(isTronAddressFast(a)).toBe(true);
    expect(isTronAddressFast(a.slice(0, 33) + ALPHABET[(ALPHABET.indexOf(a[33]) + 1) % 58])).toBe(false);
  }
});

test('random T-strings of 34 base58 characters agree with TronWeb (too large, wrong version, checksum)', () => {
  for (let n = 0; n < 2000; n += 1) {
    const s = `T${Array.from(randomBytes(33), (b) => ALPHABET[b % 58]).join('')}`;
    expect(isTronAddressFast(s)).toBe(isTronAddress(s));
  }
  for (const v of [undefined, null, 42, '', 'T', `T${'z'.repeat(33)}`, `T${'1'.repeat(33)}`]) expect(isTronAddressFast(v)).toBe(isTronAddress(v));
});
