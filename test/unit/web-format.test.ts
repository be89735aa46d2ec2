/** The dashboard's amount formatting: SUN to TRX exactly (bigint, no float rounding), grouped, signed. */
import fc from 'fast-check';
import { trx, usdt, short } from '../../web/src/format';

const nb = '\u00a0';

test('whole and fractional TRX, grouping, sign, missing values', () => {
  expect(trx(100_000_000)).toBe(`100${nb}TRX`);
  expect(trx(2_600_000)).toBe(`2.6${nb}TRX`);
  expect(trx(-2_600_000)).toBe(`−2.6${nb}TRX`);
  expect(trx(1)).toBe(`0.000001${nb}TRX`);
  expect(trx('9007199254740993')).toBe(`9${nb}007${nb}199${nb}254.740993${nb}TRX`);
  expect(trx(null)).toBe('–');
  expect(usdt(12_345_678)).toBe('12.34 USDT');
  expect(short('TWttKHNUBGuVtGNfq7DsBWzV4d2FEsvX6A')).toBe('TWttKH…EsvX6A');
});

test('the digits shown are exactly the SUN amount', () => {
  fc.assert(fc.property(fc.bigInt({ min: -(10n ** 18n), max: 10n ** 18n }), (sun) => {
    const shown = trx(sun).replace(`${nb}TRX`, '').split(nb).join('').replace('−', '-');
    const [whole, frac = ''] = shown.split('.');
    const back = BigInt(whole.replace('-', '')) * 1_000_000n + BigInt(frac.padEnd(6, '0') || '0');
    expect(whole.startsWith('-') ? -back : back).toBe(sun);
  }));
});
