/** The pure rules of an estimate (contract.md section 11), the revert reason decoder and the per-block read cache. */
import { BlockCache } from '../../services/chain/block-cache';
import { revertReason } from '../../services/chain/revert-reason';
import { energyShortfall, estimateTransfers, recommendedFeeLimit, signedTransferBytes, type SenderResources, type TransferFacts } from '../../services/domain/estimates';
import { priceTable } from '../../services/domain/pricing';

const table = priceTable('nile');
const fees = { energyFeeSun: 100n, bandwidthFeeSun: 1_000n, freeNetLimit: 600n };
const item = { from: 'TFrom', to: 'TTo', amount: 1_000_000n, token: 'TToken' };
const idle: SenderResources = { activated: true, energyLimit: 0n, energyUsed: 0n, freeNetLimit: 600n, freeNetUsed: 0n, netLimit: 0n, netUsed: 0n };
const estimateTransfer = (i: typeof item, f: TransferFacts, c: typeof fees, t: typeof table) => estimateTransfers([i], [f], c, t)[0];
const facts = (over: Partial<TransferFacts['simulation']> = {}, sender: Partial<SenderResources> = {}, receiverTokenBalance = 1n): TransferFacts => ({
  simulation: { ok: true, energyUsed: 64_460n, energyPenalty: 49_810n, failure: null, rawDataBytes: 200, ...over },
  sender: { ...idle, ...sender },
  receiverTokenBalance,
});

test('signed size: raw data with the fee limit field, one signature, 64 bytes for the result', () => {
  // raw 200 + fee limit 7 TRX (2-byte tag + 4-byte varint) = 206 -> 1 + 2 + 206; signature 1 + 1 + 65; 64.
  expect(signedTransferBytes(200, 7_000_000n)).toBe(209 + 67 + 64);
  expect(signedTransferBytes(100, 0n)).toBe(102 + 67 + 64);
});

test('fee limit: energy x fee plus 20 %, rounded up to a whole TRX', () => {
  expect(recommendedFeeLimit(64_460n, 100n)).toBe(8_000_000n); // 7 735 200 SUN
  expect(recommendedFeeLimit(50_000n, 100n)).toBe(6_000_000n); // exactly 6 TRX stays 6
  expect(recommendedFeeLimit(0n, 100n)).toBe(1_000_000n);
});

test('a sender with nothing: energy and bandwidth rented, the burn without rental priced from the chain fees', () => {
  const e = estimateTransfer(item, facts({}, { freeNetUsed: 500n }), fees, table);
  const bytes = signedTransferBytes(200, 8_000_000n);
  expect(e).toMatchObject({
    ok: true, error: null, energy_needed: 64_460, energy_penalty: 49_810, energy_available: 0, energy_to_rent: 64_460,
    bandwidth_needed: bytes, bandwidth_available: 100, bandwidth_to_rent: bytes, sender_activated: true, receiver_holds_token: true,
    fee_limit_sun: 8_000_000n, burn_sun_without_rental: 64_460n * 100n + BigInt(bytes) * 1_000n,
  });
  expect(e.orders).toEqual([
    { resource: 'energy', amount: 64_460, tier: '5m', receiver: 'TFrom', activate: true },
    { resource: 'bandwidth', amount: bytes, tier: '5m', receiver: 'TFrom', activate: true },
  ]);
  expect(e.total_amount_sun).toBe(64_460n * 40n + BigInt(bytes) * 400n);
});

test('bandwidth is all or nothing per source; a small shortfall is raised to the row minimum', () => {
  // 300 staked left and 300 free left: neither covers ~340 bytes, so it all burns, and staked is topped up.
  const split = estimateTransfer(item, facts({}, { energyLimit: 60_000n, netLimit: 300n, freeNetUsed: 300n }), fees, table);
  expect(split.bandwidth_available).toBe(600);
  expect(split.bandwidth_to_rent).toBe(300); // shortfall ~40 bytes raised to the bandwidth row's 300
  expect(split.energy_to_rent).toBe(10_000); // 4 460 short raised to the energy row's 10 000
  expect(split.burn_sun_without_rental).toBe(4_460n * 100n + BigInt(split.bandwidth_needed) * 1_000n);
  // The free allowance alone covers it: nothing to rent, no burn.
  const free = estimateTransfer(item, facts({}, { energyLimit: 70_000n }), fees, table);
  expect([free.energy_to_rent, free.bandwidth_to_rent, free.burn_sun_without_rental, free.orders, free.total_amount_sun]).toEqual([0, 0, 0n, [], 0n]);
});

test('an inactive sender is counted as its order leaves it: activated once, with a new account free bandwidth', () => {
  const e = estimateTransfer(item, facts({}, { activated: false, freeNetLimit: 0n }), fees, table);
  expect(e.sender_activated).toBe(false);
  expect(e.bandwidth_to_rent).toBe(0);
  expect(e.orders).toEqual([{ resource: 'energy', amount: 64_460, tier: '5m', receiver: 'TFrom', activate: true }]);
  expect(e.total_amount_sun).toBe(64_460n * 40n + table.activationFeeSun);
});

test('a transfer that reverts: ok false with 3046 and its reason, and no orders', () => {
  const e = estimateTransfer(item, facts({ ok: false, energyUsed: 1_000n, energyPenalty: 0n, failure: 'ERC20: transfer amount exceeds balance' }), fees, table);
  expect(e.ok).toBe(false);
  expect(e.error).toEqual({ code: 3046, slug: 'transfer_would_fail', message: 'ERC20: transfer amount exceeds balance' });
  expect([e.orders, e.energy_to_rent, e.total_amount_sun]).toEqual([[], 0, 0n]);
  expect(e.burn_sun_without_rental).toBe(100_000n); // 1 000 energy burned; the free bandwidth covers the bytes
});

test('a receiver at zero is reported (the new-holder cost); the energy shortfall alone sizes for_transfer', () => {
  expect(estimateTransfer(item, facts({}, {}, 0n), fees, table).receiver_holds_token).toBe(false);
  expect(energyShortfall(facts({ energyUsed: 130_460n }, { energyLimit: 100_000n, energyUsed: 10_000n }), 10_000)).toEqual({
    energyNeeded: 130_460n, energyAvailable: 90_000n, energyToRent: 40_460n,
  });
  expect(energyShortfall(facts({}, { energyLimit: 70_000n }), 10_000).energyToRent).toBe(0n);
});

test('revert reasons: Error(string) decoded, anything else null', () => {
  const reason = 'ERC20: transfer amount exceeds balance';
  const text = Buffer.from(reason).toString('hex');
  const data = '08c379a0' + (32).toString(16).padStart(64, '0') + reason.length.toString(16).padStart(64, '0') + text.padEnd(Math.ceil(text.length / 64) * 64, '0');
  expect(revertReason(data)).toBe(reason);
  expect(revertReason('')).toBeNull();
  expect(revertReason('4e487b71' + '1'.padStart(64, '0'))).toBeNull(); // Panic(uint256)
  expect(revertReason('08c379a0' + '00')).toBeNull();
});

test('block cache: one read per key and block, a newer block starts over, a failure is not kept', async () => {
  const cache = new BlockCache(10);
  let reads = 0;
  const read = async () => ++reads;
  expect(await Promise.all([cache.get(5, 'k', read), cache.get(5, 'k', read)])).toEqual([1, 1]);
  expect(await cache.get(6, 'k', read)).toBe(2);
  expect(await cache.get(5, 'k', read)).toBe(3); // an older block reads through
  await expect(cache.get(6, 'bad', () => Promise.reject(new Error('down')))).rejects.toThrow('down');
  expect(await cache.get(6, 'bad', read)).toBe(4);
});

test('transfers from one sender count one after the other: energy and bandwidth the earlier ones use are gone', () => {
  const f = facts({}, { energyLimit: 100_000n, netLimit: 400n });
  const [first, second, third] = estimateTransfers([item, item, { ...item, from: 'TOther' }], [f, f, f], fees, table);
  const bytes = BigInt(first.bandwidth_needed);
  // First: 100 000 energy and 400 staked bytes cover 64 460 and ~340 bytes.
  expect([first.energy_to_rent, first.bandwidth_to_rent, first.burn_sun_without_rental]).toEqual([0, 0, 0n]);
  // Second: 35 540 energy left (28 920 short); ~60 staked left, the free 600 covers the bytes.
  expect([second.energy_available, second.energy_to_rent, second.bandwidth_to_rent]).toEqual([35_540, 28_920, 0]);
  expect(second.burn_sun_without_rental).toBe(28_920n * 100n);
  expect(second.bandwidth_available).toBe(Number(400n - bytes + 600n));
  // Another sender starts from its own resources.
  expect(third.energy_available).toBe(100_000);
  // A third transfer from the first sender: no energy, no free bandwidth left: both rented, both burned without.
  const [, , again] = estimateTransfers([item, item, item], [f, f, f], fees, table);
  expect(again.energy_to_rent).toBe(64_460);
  expect(again.bandwidth_to_rent).toBe(300);
  expect(again.burn_sun_without_rental).toBe(64_460n * 100n + bytes * 1_000n);
});
