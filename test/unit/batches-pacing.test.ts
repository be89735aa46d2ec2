import { SUN_PER_TRX, trxFor } from '../../services/chain/allocation';
import { devnetKey, signerOf } from '../../services/chain/pool-keys';
import type { ChainWriter } from '../../services/chain/writes';
import { CEILING_FACTOR, mayPlace, nextBound, OrderPacer } from '../../services/batches/pacing';
import { type OpenOrders } from '../../services/orders/reads';
import { StakeSupplier } from '../../services/chain/suppliers';
import type { Order } from '../../services/domain/orders/rules';
import { SteppedClock } from '../../services/platform/clock';

const window = { maxOpen: 10, waitWindowMs: 90_000 };

test('an order is placed only under the open-order bound and while the oldest open order is young', () => {
  const now = 1_000_000;
  expect(mayPlace({ count: 0, oldestAt: null }, 0, now, window)).toBe(true);
  expect(mayPlace({ count: 9, oldestAt: now - 1_000 }, 0, now, window)).toBe(true);
  // Ten awaiting delivery, or nine and one on its way.
  expect(mayPlace({ count: 10, oldestAt: now - 1_000 }, 0, now, window)).toBe(false);
  expect(mayPlace({ count: 9, oldestAt: now - 1_000 }, 1, now, window)).toBe(false);
  // The delivery path is behind: its oldest order has waited a third of the window.
  expect(mayPlace({ count: 1, oldestAt: now - 29_999 }, 0, now, window)).toBe(true);
  expect(mayPlace({ count: 1, oldestAt: now - 30_000 }, 0, now, window)).toBe(false);
});

test('the pacer holds receivers until orders leave the open set, one read shared by all waiting', async () => {
  const clock = new SteppedClock(1_000_000);
  let open: OpenOrders = { count: 8, oldestAt: clock.now() };
  let reads = 0;
  const pacer = new OrderPacer({ read: async () => (reads++, open), clock, maxOpen: 10, waitWindowMs: 90_000, everyMs: 20 });
  expect(await pacer.acquire(() => false)).toBe(true);
  expect(await pacer.acquire(() => false)).toBe(true);
  let third = false;
  const waiting = pacer.acquire(() => false).then((ok) => (third = ok));
  await new Promise((r) => setTimeout(r, 100));
  expect(third).toBe(false);
  // Two of the eight settle; the two placed are applied (counted in the read) and answered (released).
  open = { count: 8, oldestAt: clock.now() };
  pacer.release();
  pacer.release();
  open = { count: 8, oldestAt: clock.now() };
  await waiting;
  expect(third).toBe(true);
  expect(reads).toBeGreaterThan(1);
  // A stopped executor stops waiting.
  open = { count: 10, oldestAt: clock.now() };
  await new Promise((r) => setTimeout(r, 30));
  expect(await pacer.acquire(() => true)).toBe(false);
});

test('orders of one pass signed concurrently never promise the same stake twice', async () => {
  const ratio = { limit: 180_000_000_000n, weight: 8_030_000_000n };
  const need = trxFor(10_000, ratio) * SUN_PER_TRX;
  const signers = [signerOf(devnetKey('devnet', 'pool:0')), signerOf(devnetKey('devnet', 'pool:1'))];
  // Each address can delegate stake for 2.5 orders: five concurrent orders, four filled (two per address).
  const writer = {
    delegatableSun: async () => (await new Promise((r) => setTimeout(r, 5)), (need * 5n) / 2n),
    signDelegate: async (_s: unknown, _r: string, _res: string, sun: bigint) => (await new Promise((r) => setTimeout(r, 5)), { txId: `tx${sun}${Math.random()}`, signedTx: '{}' }),
  } as unknown as ChainWriter;
  let nonce = 0n;
  const supplier = new StakeSupplier(writer, signers, null, { next: async () => (nonce += 1n) });
  await supplier.refresh();
  const order = (i: number) => ({ id: `ord_${i}`, resource: 'energy', amount: 10_000, activateSun: 0n, receiver: 'TR' } as unknown as Order);
  const ref = { ref_block_bytes: '0000', ref_block_hash: '00', expiration: 0, timestamp: 0 };
  const filled = await Promise.all([0, 1, 2, 3, 4].map((i) => supplier.allocate(order(i), ref, ratio, false)));
  expect(filled.filter((f) => f !== null)).toHaveLength(4);
  const perAddress = new Map<string, bigint>();
  for (const tx of filled.flatMap((f) => f?.txs ?? [])) perAddress.set(tx.from, (perAddress.get(tx.from) ?? 0n) + tx.sun);
  for (const sun of perAddress.values()) expect(sun).toBeLessThanOrEqual((need * 5n) / 2n);
});

test('the open-order bound grows while the path keeps up and the bound holds placing back, shrinks once the oldest is old', () => {
  const o = { maxOpen: 100, waitWindowMs: 90_000, targetAgeMs: 5_000 };
  const now = 1_000_000;
  const young = { count: 100, oldestAt: now - 2_000 };
  const old = { count: 100, oldestAt: now - 6_000 };
  // Fixed without a target, and never below the floor.
  expect(nextBound(100, young, true, now, 1_000, { maxOpen: 100, waitWindowMs: 90_000 })).toBe(100);
  expect(nextBound(100, old, false, now, 1_000, o)).toBe(100);
  // Held back by the bound with the path keeping up: a quarter more per second; not held back: unchanged.
  expect(nextBound(100, young, true, now, 1_000, o)).toBe(125);
  expect(nextBound(100, young, true, now, 100, o)).toBeCloseTo(102.5);
  expect(nextBound(200, young, false, now, 1_000, o)).toBe(200);
  // The oldest past the target: halves per second (down to the floor); a long gap counts as one second.
  expect(nextBound(400, old, true, now, 1_000, o)).toBe(200);
  expect(nextBound(400, old, true, now, 60_000, o)).toBe(200);
  // At most CEILING_FACTOR times the floor.
  expect(nextBound(100 * CEILING_FACTOR, young, true, now, 1_000, o)).toBe(100 * CEILING_FACTOR);
  // A target past a sixth of the window counts as a sixth (15 s here).
  expect(nextBound(400, { count: 400, oldestAt: now - 16_000 }, true, now, 1_000, { ...o, targetAgeMs: 60_000 })).toBe(200);
});

test('the pacer raises its bound while receivers wait at it and the open orders stay young', async () => {
  const clock = new SteppedClock(1_000_000);
  const pacer = new OrderPacer({ read: async () => ({ count: 10, oldestAt: clock.now() - 1_000 }), clock, maxOpen: 10, waitWindowMs: 90_000, everyMs: 20, targetAgeMs: 5_000 });
  expect(pacer.limit).toBe(10);
  // Ten open, the bound ten: the receiver waits (reads every 20 ms) until the bound has grown past ten.
  expect(await pacer.acquire(() => false)).toBe(true);
  expect(pacer.limit).toBeGreaterThan(10);
});
