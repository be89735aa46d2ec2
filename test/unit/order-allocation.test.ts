import { inFlightSun, lessInFlight, planDelegation, SUN_PER_TRX, trxFor, unitsFor } from '../../services/chain/allocation';
import { devnetKey, poolSigners } from '../../services/chain/pool-keys';
import { parseConfig } from '../../services/platform/config';
import { freshKeys } from './support/keys';

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

test('stake of stored delegations still in flight is taken off each address before filling', () => {
  const trx = (n: bigint) => n * SUN_PER_TRX;
  const head = 1_000_000;
  const delegations = [
    { from: 'A', resource: 'ENERGY', sun: trx(3_000n), expiration: head + 5_000, inBlock: false },
    { from: 'A', resource: 'ENERGY', sun: trx(1_000n), expiration: head, inBlock: false }, // expires at the head: may still land
    { from: 'A', resource: 'ENERGY', sun: trx(7_000n), expiration: head + 5_000, inBlock: true }, // landed: the chain counts it
    { from: 'A', resource: 'ENERGY', sun: trx(9_000n), expiration: head - 1, inBlock: false }, // can never land
    { from: 'A', resource: 'BANDWIDTH', sun: trx(500n), expiration: head + 5_000, inBlock: false },
    { from: 'B', resource: 'ENERGY', sun: trx(2_000n), expiration: head + 5_000, inBlock: false },
  ];
  const inFlight = inFlightSun(delegations, head);
  expect(inFlight).toEqual(new Map([['A:ENERGY', trx(4_000n)], ['A:BANDWIDTH', trx(500n)], ['B:ENERGY', trx(2_000n)]]));
  const sources = [{ address: 'A', availableSun: trx(5_000n) }, { address: 'B', availableSun: trx(1_000n) }, { address: 'C', availableSun: trx(2_500n) }];
  expect(lessInFlight(sources, 'ENERGY', inFlight)).toEqual([
    { address: 'A', availableSun: trx(1_000n) }, { address: 'B', availableSun: 0n }, { address: 'C', availableSun: trx(2_500n) },
  ]);
  // Under a real shortage: the chain still reports 5,000 + 1,000 TRX on A and B (enough for 65,000 energy,
  // about 2,900 TRX), but 4,000 and 2,000 of it are promised to delegations that have not landed yet.
  const pool = sources.slice(0, 2);
  expect(trxFor(65_000, ratio)).toBeGreaterThan(1_000n);
  expect(planDelegation(65_000, ratio, pool)).toEqual([{ from: 'A', amount: 65_000, sun: trxFor(65_000, ratio) * SUN_PER_TRX }]);
  expect(planDelegation(65_000, ratio, lessInFlight(pool, 'ENERGY', inFlight))).toBeNull();
  // What is left is still used: a small order fits in A's remaining 1,000 TRX.
  expect(planDelegation(20_000, ratio, lessInFlight(pool, 'ENERGY', inFlight))).toEqual([{ from: 'A', amount: 20_000, sun: trxFor(20_000, ratio) * SUN_PER_TRX }]);
});

test('devnet pool keys derive from the seed; mainnet needs configured keys', () => {
  const cfg = parseConfig({ NETWORK: 'nile', DEVNET_SEED: 'devnet', DEVNET_POOL: '2', ...freshKeys() });
  const signers = poolSigners(cfg);
  expect(signers.map((s) => s.privateKey)).toEqual([devnetKey('devnet', 'pool:0'), devnetKey('devnet', 'pool:1')]);
  expect(signers[0].address).toMatch(/^T/);
  expect(() => poolSigners({ ...cfg, NETWORK: 'mainnet' })).toThrow(/POOL_PRIVATE_KEYS/);
});
