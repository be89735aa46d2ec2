import { planDelegation, SUN_PER_TRX, trxFor, unitsFor } from '../../services/chain/allocation';
import { devnetKey, poolSigners } from '../../services/chain/pool-keys';
import { parseConfig } from '../../services/platform/config';

const ratio = { limit: 180_000_000_000n, weight: 8_030_000_000n };

test('whole TRX of stake that earn at least the amount, as java-tron truncates', () => {
  for (const amount of [1, 22, 65_000, 100_000, 1_234_567]) {
    const trx = trxFor(amount, ratio);
    expect(unitsFor(trx, ratio)).toBeGreaterThanOrEqual(amount);
    expect(trx === 1n || unitsFor(trx - 1n, ratio) < amount).toBe(true);
  }
});

test('an order is filled from the address with most stake, split when one part is capped', () => {
  const sources = [{ address: 'A', availableSun: 10_000n * SUN_PER_TRX }, { address: 'B', availableSun: 50_000n * SUN_PER_TRX }];
  expect(planDelegation(65_000, ratio, sources)).toEqual([{ from: 'B', amount: 65_000, sun: trxFor(65_000, ratio) * SUN_PER_TRX }]);
  const split = planDelegation(65_000, ratio, sources, 2_000n * SUN_PER_TRX)!;
  expect(split.length).toBe(2);
  expect(split.reduce((s, p) => s + p.amount, 0)).toBe(65_000);
  expect(split.every((p) => p.sun <= 2_000n * SUN_PER_TRX)).toBe(true);
  expect(planDelegation(65_000, ratio, [{ address: 'A', availableSun: 100n * SUN_PER_TRX }])).toBeNull();
});

test('devnet pool keys derive from the seed; mainnet needs configured keys', () => {
  const cfg = parseConfig({ NETWORK: 'nile', DEVNET_SEED: 'devnet', DEVNET_POOL: '2' });
  const signers = poolSigners(cfg);
  expect(signers.map((s) => s.privateKey)).toEqual([devnetKey('devnet', 'pool:0'), devnetKey('devnet', 'pool:1')]);
  expect(signers[0].address).toMatch(/^T/);
  expect(() => poolSigners({ ...cfg, NETWORK: 'mainnet' })).toThrow(/POOL_PRIVATE_KEYS/);
});
