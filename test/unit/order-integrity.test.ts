/**
 * Delivery integrity, pure parts: per-transaction nonces in raw_data.timestamp, what of an order's stake
 * is left on chain to undelegate, an activation charged but performed by another order coming back at
 * settlement, and a close that finds nothing left on chain finishing the order at once.
 */
import { emptyIdentity, emptyTotals, type Account } from '../../services/domain/account';
import { applyCommand } from '../../services/domain/apply';
import type { Command } from '../../services/domain/commands';
import type { IdempotencyRecord, Order } from '../../services/domain/orders/rules';
import type { OrderView, StateView } from '../../services/domain/outcome';
import { NONCE_RANGE, uniqueRef } from '../../services/chain/writes';
import { stakeLeft } from '../../services/delivery/stake-left';
import { formatResults, isFinding } from '../../services/reconciler/check';

const ctx = { network: 'nile' as const, brand: 'energy' };

function world(balanceSun: bigint) {
  const accounts = new Map<string, Account>([['acc_1', {
    id: 'acc_1', brand: 'energy', network: 'nile', ownerAddress: null, displayName: null, status: 'active', balanceSun, balanceUsdt: 0n, reservedSun: 0n,
    totals: emptyTotals(), ...emptyIdentity(), createdAt: 0, updatedAt: 0,
  } as Account]]);
  const orders = new Map<string, Order>();
  const view: OrderView = {
    byId: (id) => orders.get(id), byClientId: () => undefined, byQuote: () => undefined, idempotency: (): IdempotencyRecord | undefined => undefined,
  };
  const state: StateView = { account: (id) => accounts.get(id), orders: view };
  let n = 0;
  const run = (body: Record<string, unknown>): any => {
    const command = { commandId: `cmd_${++n}`, accountId: 'acc_1', issuedAt: 1_000_000 + n, deadlineAt: null, replyTo: null, ...body } as Command;
    const outcome = applyCommand(state, command as never, ctx);
    if (outcome.kind === 'applied') {
      for (const a of outcome.effects.accounts) accounts.set(a.id, a);
      for (const o of outcome.effects.orders ?? []) orders.set(o.id, o);
      // Follow-ups (confirmed -> active) are applied after the command, as the log delivers them.
      for (const f of outcome.effects.followUps) run(f as never);
    }
    return outcome;
  };
  return { accounts, orders, run };
}

const create = (extra: Record<string, unknown> = {}) => ({
  type: 'order.create', clientOrderId: null, idempotencyKey: null, requestHash: 'h1', resource: 'energy', amount: 65_000, tier: '5m', durationSeconds: 300,
  receiver: 'TR', receiverActive: false, activate: null, maxPriceSun: null, quoteId: null, quoteExpiresAt: null, priceSunPerUnit: 40n, paySun: 2_600_000n,
  activateSun: 1_500_000n, source: 'api', memo: null, supplier: 'pool', ...extra,
});
const tx = (txId: string, kind = 'delegate') => ({ kind, from: 'TP', amount: kind === 'activate' ? 0 : 65_000, sun: 1n, txId, signedTx: '{}' });

test('nonces: each transaction its own timestamp within the range, the 6-byte varint kept', () => {
  const ref = { ref_block_bytes: '0001', ref_block_hash: '00'.repeat(8), expiration: 1_763_900_060_000, timestamp: 1_763_900_000_000 };
  const stamps = [1n, 2n, 3n, NONCE_RANGE + 4n].map((n) => uniqueRef(ref, n).timestamp);
  expect(new Set(stamps).size).toBe(4);
  expect(stamps.every((t) => t >= ref.timestamp && t < ref.timestamp + Number(NONCE_RANGE))).toBe(true);
  expect(uniqueRef(ref, 7n)).toMatchObject({ expiration: ref.expiration, ref_block_hash: ref.ref_block_hash });
  // A millisecond time plus the nonce stays below 2^42: six varint bytes, as without it.
  expect(ref.timestamp + Number(NONCE_RANGE) < 2 ** 42).toBe(true);
});

test('stake left: the chain less what staying orders hold, capped at the order, nothing when nothing is left', () => {
  const chain = (m: Record<string, bigint>) => (from: string) => m[from] ?? 0n;
  expect(stakeLeft([{ from: 'A', sun: 5n }], chain({ A: 12n }), chain({ A: 7n }))).toEqual([{ from: 'A', sun: 5n }]);
  expect(stakeLeft([{ from: 'A', sun: 5n }], chain({ A: 9n }), chain({ A: 7n }))).toEqual([{ from: 'A', sun: 2n }]);
  expect(stakeLeft([{ from: 'A', sun: 5n }], chain({ A: 5n }), chain({ A: 7n }))).toEqual([]);
  // Two parts from one address share what is left; another address is counted on its own.
  expect(stakeLeft([{ from: 'A', sun: 4n }, { from: 'A', sun: 4n }, { from: 'B', sun: 3n }], chain({ A: 6n, B: 3n }), chain({})))
    .toEqual([{ from: 'A', sun: 4n }, { from: 'A', sun: 2n }, { from: 'B', sun: 3n }]);
});

test('an order charged for an activation another order performs gets that part back, with its own journal', () => {
  const w = world(10_000_000n);
  const mine = w.run(create()).body.id;
  const theirs = w.run(create()).body.id;
  w.run({ type: 'order.allocate', orderId: mine, txs: [tx('a1', 'activate'), tx('d1')], ratioLimit: 1n, ratioWeight: 1n });
  w.run({ type: 'order.allocate', orderId: theirs, txs: [tx('d2')], ratioLimit: 1n, ratioWeight: 1n });
  const activated = w.run({ type: 'order.settle', orderId: mine, landedTxIds: ['a1', 'd1'], deliveredAt: 5_000 });
  expect(activated.body).toMatchObject({ refunded_amount_sun: 0n, activation: { performed: true, hash: 'a1' } });
  const other = w.run({ type: 'order.settle', orderId: theirs, landedTxIds: ['d2'], deliveredAt: 5_000 });
  expect(other.body).toMatchObject({ status: 'confirmed', refunded_amount_sun: 1_500_000n, partial: false, activation: { performed: false, hash: null } });
  expect(other.effects.journals.map((j: any) => [j.kind, j.memo])).toEqual([['order_charge', null], ['order_refund', 'activation performed by another order']]);
  // Both paid their energy; one activation fee in all.
  expect(w.accounts.get('acc_1')).toMatchObject({ balanceSun: 10_000_000n - 2n * 2_600_000n - 1_500_000n, reservedSun: 0n });
});

test('a close that finds nothing of the order left on chain finishes it at once, without a reclaim hash', () => {
  const w = world(10_000_000n);
  const id = w.run(create({ activateSun: 0n, receiverActive: true })).body.id;
  w.run({ type: 'order.allocate', orderId: id, txs: [tx('d1')], ratioLimit: 1n, ratioWeight: 1n });
  w.run({ type: 'order.settle', orderId: id, landedTxIds: ['d1'], deliveredAt: 5_000 });
  const close = (txIds: string[], replaces: string[]) =>
    w.run({ type: 'order.close', orderId: id, step: 'signed', reason: 'expired', txs: txIds.map((t) => tx(t, 'undelegate')), idempotencyKey: null, at: 9_000, replaces });
  close(['u1'], []);
  expect(w.orders.get(id)).toMatchObject({ status: 'active', reclaimHash: 'u1' });
  // u1 was refused (the stake is gone): re-signed for nothing.
  const done = close([], ['u1']);
  expect(done.body).toMatchObject({ status: 'expired', reclaim_hash: null });
  expect(done.effects.events[0]).toMatchObject({ type: 'order.expired', data: { reclaim_hash: null } });
  expect(w.orders.get(id)).toMatchObject({ undelegations: [], reclaimedAt: 9_000 });
});

test('a refunded order with stake on chain: its close stores and finishes the undelegation, the order stays refunded, no event', () => {
  const w = world(10_000_000n);
  const id = w.run(create({ activateSun: 0n, receiverActive: true })).body.id;
  w.run({ type: 'order.allocate', orderId: id, txs: [tx('d1')], ratioLimit: 1n, ratioWeight: 1n });
  w.run({ type: 'order.settle', orderId: id, landedTxIds: ['d1'], deliveredAt: 5_000 });
  expect(w.run({ type: 'order.refund', orderId: id, reason: 'dispute' }).body.status).toBe('refunded');
  const close = (step: string, txIds: string[]) =>
    w.run({ type: 'order.close', orderId: id, step, reason: 'expired', txs: txIds.map((t) => tx(t, 'undelegate')), idempotencyKey: null, at: 9_000, replaces: [] });
  expect(close('signed', ['u1']).effects.events).toEqual([]);
  expect(w.orders.get(id)).toMatchObject({ status: 'refunded', reclaimHash: 'u1', reclaimedAt: null });
  const landed = close('landed', []);
  expect([landed.body.status, landed.effects.events]).toEqual(['refunded', []]);
  expect(w.orders.get(id)).toMatchObject({ status: 'refunded', reclaimedAt: 9_000 });
  // Done: a second close changes nothing (the move guard refuses it: a refunded order no longer closes).
  expect(close('signed', ['u2']).effects?.orders ?? []).toEqual([]);
});

test('a refund of an undelivered order (its stake is not on chain) fails it: order.failed, the journal and balance.credited', () => {
  const w = world(10_000_000n);
  const id = w.run(create({ activateSun: 0n, receiverActive: true })).body.id;
  w.run({ type: 'order.allocate', orderId: id, txs: [tx('d1')], ratioLimit: 1n, ratioWeight: 1n });
  w.run({ type: 'order.settle', orderId: id, landedTxIds: ['d1'], deliveredAt: 5_000 });
  const out = w.run({ type: 'order.refund', orderId: id, reason: 'incident_credit', undelivered: true });
  expect(out.body).toMatchObject({ status: 'failed', confirm_status: 'confirm_failed', refunded_amount_sun: 2_600_000n, failure: { slug: 'delegation_failed' } });
  expect(out.effects.events.map((e: any) => [e.type, e.data.refunded_amount_sun ?? e.data.amount_sun])).toEqual([['order.failed', 2_600_000n], ['balance.credited', 2_600_000n]]);
  expect(out.effects.events[0].data).toMatchObject({ refund_complete: true, charged_amount_sun: 2_600_000n, failure: { slug: 'delegation_failed' } });
  expect(out.effects.events[1].data).toMatchObject({ reason: 'refund', reference_id: id, balance_sun: 10_000_000n });
  expect(out.effects.journals.map((j: any) => [j.kind, j.orderId])).toEqual([['order_refund', id]]);
  expect(w.accounts.get('acc_1')).toMatchObject({ balanceSun: 10_000_000n, reservedSun: 0n });
  // Never twice; its landed stake is closed afterwards like a refunded order's.
  expect(w.run({ type: 'order.refund', orderId: id, reason: 'incident_credit', undelivered: true }).kind).toBe('rejected');
  w.run({ type: 'order.close', orderId: id, step: 'signed', reason: 'expired', txs: [], idempotencyKey: null, at: 9_000, replaces: [] });
  expect(w.orders.get(id)).toMatchObject({ status: 'failed', reclaimedAt: 9_000 });
});

test('reconcile rows: a finding is a difference no transaction in flight explains; the table names them', () => {
  const row = (difference: bigint, inFlight: boolean) => ({ subject: { pool: 'TP', receiver: 'TR', resource: 'ENERGY' }, onChain: 10n + difference, expected: 10n, difference, inFlight, note: null });
  expect([row(0n, false), row(3n, true), row(-3n, false)].map(isFinding)).toEqual([false, false, true]);
  const text = formatResults([{ check: 'orders-stake', rows: [row(0n, false), row(-3n, false)], ms: 1 }]);
  expect(text).toContain('1 differing');
  expect(text).toMatch(/TP\s+TR\s+ENERGY\s+7\s+10\s+-3\s+DIFFERS/);
  expect(text).not.toMatch(/\s10\s+10\s+0\s/);
});
