import { ledgerAccounts, revenueJournal } from '../../../services/domain/ledger';
import { codeInForce, routingFeeBps, routingFeeOf, routingFeeRefunded, routingFeeSun, routingFeeTable, type EnteredCode } from '../../../services/domain/routing-fee';

const DAY = 86_400_000;
const TRX = 1_000_000n;
const ENTERED = Date.parse('2026-11-01T12:00:00Z');
const table = routingFeeTable('nile');
const code: EnteredCode = { feeBps: 300, durationDays: 30, enteredAt: ENTERED };

describe('routing fee rate', () => {
  it('is nothing for the pool, whatever the code or volume', () => {
    expect(routingFeeBps('pool', table, 10n ** 15n, code, ENTERED + DAY)).toEqual({ bps: 0, source: 'none' });
  });

  it('is the network base for a provider-routed order without volume or code', () => {
    expect(routingFeeBps('provider', table, 0n, null, ENTERED)).toEqual({ bps: 1_000, source: 'base' });
  });

  it('drops to the highest volume tier reached', () => {
    expect(routingFeeBps('provider', table, 10_000n * TRX - 1n, null, ENTERED)).toEqual({ bps: 1_000, source: 'base' });
    expect(routingFeeBps('provider', table, 10_000n * TRX, null, ENTERED)).toEqual({ bps: 700, source: 'volume_tier' });
    expect(routingFeeBps('provider', table, 100_000n * TRX, null, ENTERED)).toEqual({ bps: 500, source: 'volume_tier' });
  });

  it('an entered code caps it from entry for duration_days, then the normal rate is back', () => {
    expect(routingFeeBps('provider', table, 0n, code, ENTERED - 1)).toEqual({ bps: 1_000, source: 'base' });
    expect(routingFeeBps('provider', table, 0n, code, ENTERED)).toEqual({ bps: 300, source: 'promo_code' });
    expect(routingFeeBps('provider', table, 0n, code, ENTERED + 30 * DAY - 1)).toEqual({ bps: 300, source: 'promo_code' });
    expect(routingFeeBps('provider', table, 0n, code, ENTERED + 30 * DAY)).toEqual({ bps: 1_000, source: 'base' });
    expect(codeInForce(code, ENTERED + 30 * DAY)).toBe(false);
    expect(codeInForce(null, ENTERED)).toBe(false);
  });

  it('the lower of the code and the volume tier applies', () => {
    const lowTiers = routingFeeTable('nile', 1_000, [{ min_volume_sun: 0, fee_bps: 900 }, { min_volume_sun: '5000000', fee_bps: 200 }]);
    expect(routingFeeBps('provider', lowTiers, 5_000_000n, code, ENTERED)).toEqual({ bps: 200, source: 'volume_tier' });
    expect(routingFeeBps('provider', lowTiers, 4_999_999n, code, ENTERED)).toEqual({ bps: 300, source: 'promo_code' });
    // A code above the rate in force changes nothing.
    expect(routingFeeBps('provider', lowTiers, 5_000_000n, { ...code, feeBps: 250 }, ENTERED)).toEqual({ bps: 200, source: 'volume_tier' });
  });
});

describe('routing fee in SUN', () => {
  it('is the rate on the pay amount, rounded up to the whole SUN, in bigint', () => {
    expect(routingFeeSun(2_600_000n, 300)).toBe(78_000n);
    expect(routingFeeSun(2_600_000n, 1_000)).toBe(260_000n);
    expect(routingFeeSun(1n, 300)).toBe(1n);
    expect(routingFeeSun(33n, 300)).toBe(1n);
    expect(routingFeeSun(0n, 300)).toBe(0n);
    expect(routingFeeSun(2_600_000n, 0)).toBe(0n);
    // Far past Number's exact range: still exact.
    expect(routingFeeSun(9_000_000_000_000_000_001n, 300)).toBe(270_000_000_000_000_001n);
  });
});

describe('routing fee table', () => {
  it('takes the base and tiers from configuration, tiers sorted by volume', () => {
    const t = routingFeeTable('mainnet', 800, [{ min_volume_sun: 200, fee_bps: 400 }, { min_volume_sun: 100, fee_bps: 600 }]);
    expect(t).toEqual({ baseBps: 800, tiers: [{ minVolumeSun: 100n, feeBps: 600 }, { minVolumeSun: 200n, feeBps: 400 }] });
  });

  it('refuses a rate outside 0..10000 bps or a tiers value that is not an array', () => {
    expect(() => routingFeeTable('nile', 10_001)).toThrow(/ROUTING_FEE_BPS/);
    expect(() => routingFeeTable('nile', undefined, [{ min_volume_sun: 0, fee_bps: 1.5 }])).toThrow(/ROUTING_FEE_TIERS/);
    expect(() => routingFeeTable('nile', undefined, { fee_bps: 100 })).toThrow(/ROUTING_FEE_TIERS/);
  });
});

describe('routing fee in the ledger', () => {
  const base = { id: 'jrn_1', accountId: 'acc_1', kind: 'order_charge' as const, commandId: 'cmd_1', orderId: 'ord_1', memo: null, createdAt: 0 };
  const customer = ledgerAccounts.customerTrx('acc_1');

  it('is what a provider-routed order pays above amount x price; none for the pool or an activation', () => {
    expect(routingFeeOf({ supplier: 'provider', paySun: 4_017_000n, priceSunPerUnit: 60n, amount: 65_000 })).toBe(117_000n);
    expect(routingFeeOf({ supplier: 'pool', paySun: 3_900_000n, priceSunPerUnit: 60n, amount: 65_000 })).toBe(0n);
    expect(routingFeeOf({ supplier: 'provider', paySun: 0n, priceSunPerUnit: null, amount: null })).toBe(0n);
  });

  it('is refunded pro rata with the undelivered part, rounded down', () => {
    expect(routingFeeRefunded(117_000n, 65_000, 65_000)).toBe(0n);
    expect(routingFeeRefunded(117_000n, 65_000, 0)).toBe(117_000n);
    expect(routingFeeRefunded(100n, 3, 1)).toBe(66n);
  });

  it('the charge splits into order revenue and routing fees and balances; without a fee it is the plain transfer', () => {
    const charge = revenueJournal(base, customer, 4_017_000n, 117_000n, true);
    expect(charge.lines.map((l) => [l.ledgerAccount, l.amount])).toEqual([
      [customer, -4_017_000n], [ledgerAccounts.orderRevenue, 3_900_000n], [ledgerAccounts.routingFees, 117_000n],
    ]);
    const refund = revenueJournal({ ...base, kind: 'order_refund' }, customer, 2_008_500n, 58_500n, false);
    expect(refund.lines.map((l) => [l.ledgerAccount, l.amount])).toEqual([
      [ledgerAccounts.orderRevenue, -1_950_000n], [ledgerAccounts.routingFees, -58_500n], [customer, 2_008_500n],
    ]);
    expect(revenueJournal(base, customer, 3_900_000n, 0n, true).lines.map((l) => [l.ledgerAccount, l.amount])).toEqual([
      [customer, -3_900_000n], [ledgerAccounts.orderRevenue, 3_900_000n],
    ]);
  });
});
