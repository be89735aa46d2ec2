/** Orders, pure: pricing and tiers, the order state machine, the handlers (idempotency, reservation, partial refund, failure), CSV cells. */
import { emptyIdentity, emptyTotals, type Account } from '../../services/domain/account';
import { applyCommand } from '../../services/domain/apply';
import type { Command } from '../../services/domain/commands';
import { canMove, partialRefund, type IdempotencyRecord, type Order } from '../../services/domain/orders/rules';
import type { OrderView, StateView } from '../../services/domain/outcome';
import { chargeFor, priceFor, priceTable } from '../../services/domain/pricing';
import { csvCell } from '../../services/api/views/orders-csv';

const ctx = { network: 'nile' as const, brand: 'energy' };
const account = (balanceSun: bigint, reservedSun = 0n): Account => ({
  id: 'acc_1', brand: 'energy', network: 'nile', ownerAddress: null, displayName: null, status: 'active', balanceSun, balanceUsdt: 0n, reservedSun,
  totals: emptyTotals(), ...emptyIdentity(), createdAt: 0, updatedAt: 0,
});

class Memory implements OrderView {
  orders = new Map<string, Order>();
  records = new Map<string, IdempotencyRecord>();
  byId = (id: string) => this.orders.get(id);
  byClientId = (a: string, c: string) => [...this.orders.values()].find((o) => o.accountId === a && o.clientOrderId === c);
  byQuote = (a: string, q: string) => [...this.orders.values()].find((o) => o.accountId === a && o.quoteId === q);
  idempotency = (a: string, k: string) => this.records.get(`${a}:${k}`);
}

function world(balance: bigint) {
  const accounts = new Map([['acc_1', account(balance)]]);
  const orders = new Memory();
  const view: StateView = { account: (id) => accounts.get(id), orders };
  let n = 0;
  const run = (body: Record<string, unknown>) => {
    const command = { commandId: `cmd_${++n}`, accountId: 'acc_1', issuedAt: 1_000_000 + n, deadlineAt: null, replyTo: null, ...body } as Command;
    const outcome = applyCommand(view, command as never, ctx);
    if (outcome.kind === 'applied') {
      for (const a of outcome.effects.accounts) accounts.set(a.id, a);
      for (const o of outcome.effects.orders ?? []) orders.orders.set(o.id, o);
      for (const r of outcome.effects.idempotency ?? []) orders.records.set(`${r.accountId}:${r.key}`, r);
      // Follow-ups (confirmed -> active) are applied after the command, as the log delivers them.
      for (const f of outcome.effects.followUps) run(f as never);
    }
    return outcome;
  };
  return { accounts, orders, run };
}

const create = (extra: Record<string, unknown> = {}) => ({
  type: 'order.create', clientOrderId: null, idempotencyKey: null, requestHash: 'h1', resource: 'energy', amount: 65_000, tier: '5m', durationSeconds: 300,
  receiver: 'TR', receiverActive: true, activate: null, maxPriceSun: null, quoteId: null, quoteExpiresAt: null, priceSunPerUnit: 40n, paySun: 2_600_000n,
  activateSun: 0n, source: 'api', memo: null, supplier: 'pool', ...extra,
});

test('price rows: sold, switched off, retired never listed, bounds', () => {
  const table = priceTable('nile');
  expect(table.rows.some((r) => r.tier === '15m')).toBe(false);
  expect(priceFor(table, 'energy', '5m', 65_000, 10_000_000).ok).toBe(true);
  expect(priceFor(table, 'energy', '1d', 65_000, 10_000_000)).toMatchObject({ ok: false, slug: 'tier_unavailable' });
  expect(priceFor(table, 'energy', '3d', 65_000, 10_000_000)).toMatchObject({ ok: false, slug: 'tier_unavailable' });
  expect(priceFor(table, 'energy', '5m', 20_000_000, 10_000_000)).toMatchObject({ ok: false, slug: 'amount_out_of_range' });
  expect(chargeFor(40n, 65_000, false, 1_500_000n)).toEqual({ priceSunPerUnit: 40n, paySun: 2_600_000n, activateSun: 1_500_000n, totalSun: 4_100_000n });
  const custom = priceTable('nile', [{ resource: 'energy', tier: '30d', price_sun_per_unit: 1, min_amount: 1, max_amount: 2, available: true }]);
  expect(custom.rows).toEqual([]);
});

test('status moves', () => {
  expect(canMove('allocating', 'confirmed')).toBe(true);
  expect(canMove('active', 'expired')).toBe(true);
  expect(canMove('failed', 'refunded')).toBe(false);
  expect(canMove('expired', 'active')).toBe(false);
});

test('create reserves, repeats are idempotent, and refusals change nothing', () => {
  const w = world(3_000_000n);
  const first = w.run(create({ clientOrderId: 'c1', idempotencyKey: 'key-1234' }));
  expect(first).toMatchObject({ kind: 'applied', status: 201 });
  expect(w.accounts.get('acc_1')).toMatchObject({ balanceSun: 3_000_000n, reservedSun: 2_600_000n });
  expect(w.run(create({ clientOrderId: 'c1' }))).toMatchObject({ kind: 'applied', status: 200 });
  expect(w.run(create({ clientOrderId: 'c1', requestHash: 'h2' }))).toMatchObject({ kind: 'rejected', error: { slug: 'idempotency_conflict' } });
  expect(w.run(create({ idempotencyKey: 'key-1234' }))).toMatchObject({ kind: 'applied', status: 201 });
  expect(w.run(create({ idempotencyKey: 'key-1234', requestHash: 'h9' }))).toMatchObject({ kind: 'rejected', error: { slug: 'idempotency_conflict' } });
  expect(w.run(create())).toMatchObject({ kind: 'rejected', error: { slug: 'insufficient_funds' } });
  expect(w.run(create({ receiverActive: false, activate: false }))).toMatchObject({ kind: 'rejected', error: { slug: 'receiver_not_activated' } });
  expect(w.run(create({ maxPriceSun: 1n }))).toMatchObject({ kind: 'rejected', error: { slug: 'price_above_limit' } });
  expect(w.orders.orders.size).toBe(1);
});

test('partial delivery charges the total and refunds the undelivered share; no landing fails and releases the reservation', () => {
  const w = world(10_000_000n);
  const a = w.run(create()) as any;
  const b = w.run(create()) as any;
  const tx = (id: string, amount: number) => ({ kind: 'delegate', from: 'TP', amount, sun: 1n, txId: id, signedTx: '{}' });
  w.run({ type: 'order.allocate', orderId: a.body.id, txs: [tx('t1', 40_000), tx('t2', 25_000)], ratioLimit: 1n, ratioWeight: 1n });
  w.run({ type: 'order.allocate', orderId: b.body.id, txs: [tx('t3', 65_000)], ratioLimit: 1n, ratioWeight: 1n });
  const settled = w.run({ type: 'order.settle', orderId: a.body.id, landedTxIds: ['t1'], deliveredAt: 5_000 }) as any;
  expect(settled.body).toMatchObject({ status: 'confirmed', partial: true, delivered_amount: 40_000, refunded_amount_sun: 1_000_000n, delegate_hashes: ['t1'] });
  expect(settled.effects.events[0]).toMatchObject({ type: 'order.confirmed', data: { partial: true, refunded_amount_sun: 1_000_000n } });
  expect(partialRefund({ amount: 65_000, paySun: 2_600_000n }, 40_000)).toBe(1_000_000n);
  const failed = w.run({ type: 'order.settle', orderId: b.body.id, landedTxIds: [], deliveredAt: 5_000 }) as any;
  expect(failed.body).toMatchObject({ status: 'failed', confirm_status: 'confirm_failed', failure: { code: 5002, slug: 'delegation_failed' } });
  expect(failed.effects.events[0]).toMatchObject({ type: 'order.failed', data: { refund_complete: true, refunded_amount_sun: 2_600_000n } });
  expect(w.accounts.get('acc_1')).toMatchObject({ balanceSun: 10_000_000n - 1_600_000n, reservedSun: 0n });
  // Its follow-up started the rental. A second settle of the same order is refused by the guard: nothing changes.
  expect(w.orders.orders.get(a.body.id)).toMatchObject({ status: 'active' });
  expect(w.run({ type: 'order.settle', orderId: a.body.id, landedTxIds: ['t1', 't2'], deliveredAt: 6_000 }))
    .toMatchObject({ kind: 'rejected', error: { slug: 'order_status_conflict', details: { from: 'active', to: 'confirmed' } } });
  expect(w.orders.orders.get(a.body.id)).toMatchObject({ deliveredAmount: 40_000, delegatedAt: 5_000 });
});

test('close: undelegations stored once; replaced only by a set naming the stored ones it replaces; landed finishes', () => {
  const w = world(10_000_000n);
  const id = (w.run(create()) as any).body.id;
  const tx = (txId: string, kind = 'undelegate') => ({ kind, from: 'TP', amount: 65_000, sun: 1n, txId, signedTx: '{}' });
  w.run({ type: 'order.allocate', orderId: id, txs: [tx('d1', 'delegate')], ratioLimit: 1n, ratioWeight: 1n });
  w.run({ type: 'order.settle', orderId: id, landedTxIds: ['d1'], deliveredAt: 5_000 });
  const close = (txIds: string[], replaces: string[], step = 'signed') =>
    w.run({ type: 'order.close', orderId: id, step, reason: 'expired', txs: txIds.map((t) => tx(t)), idempotencyKey: null, at: 9_000, replaces });
  const stored = () => w.orders.orders.get(id)!;
  close(['u1'], []);
  expect(stored()).toMatchObject({ undelegations: [{ txId: 'u1' }], reclaimHash: 'u1', closeReason: 'expired' });
  close(['u9'], []); // a second first signing: the first stored wins
  close(['u8'], ['u7']); // replaces what is not stored
  expect(stored().undelegations.map((u) => u.txId)).toEqual(['u1']);
  close(['u2'], ['u1']);
  expect(stored()).toMatchObject({ undelegations: [{ txId: 'u2' }], reclaimHash: 'u2', status: 'active' });
  close(['u3'], ['u1']); // a second signer of the same attempt: u1 is no longer stored
  expect(stored().undelegations.map((u) => u.txId)).toEqual(['u2']);
  const landed = close([], [], 'landed') as any;
  expect(landed.body).toMatchObject({ status: 'expired', reclaim_hash: 'u2' });
  expect(landed.effects.events[0]).toMatchObject({ type: 'order.expired', data: { reclaim_hash: 'u2' } });
  close(['u4'], ['u2']); // finished: nothing replaces
  expect(stored().undelegations.map((u) => u.txId)).toEqual(['u2']);
});

test('csv cells: formula prefix, quoting, arrays space-separated', () => {
  expect(csvCell('=1+1')).toBe("'=1+1");
  expect(csvCell('-5')).toBe("'-5");
  expect(csvCell(-5)).toBe('-5');
  expect(csvCell('a,"b"')).toBe('"a,""b"""');
  expect(csvCell(['x', 'y'])).toBe('x y');
  expect(csvCell(null)).toBe('');
});

test('order.confirmed names the batch or subscription the order was placed for, as its order-events twin does', () => {
  const w = world(10_000_000n);
  const tx = (id: string) => ({ kind: 'delegate', from: 'TP', amount: 65_000, sun: 1n, txId: id, signedTx: '{}' });
  for (const [extra, ids] of [
    [{ source: 'batch', batchId: 'bat_1' }, { batch_id: 'bat_1', subscription_id: null }],
    [{ source: 'subscription', subscriptionId: 'sub_1' }, { batch_id: null, subscription_id: 'sub_1' }],
    [{}, { batch_id: null, subscription_id: null }],
  ] as const) {
    const placed = w.run(create(extra)) as any;
    const txId = `t_${placed.body.id}`;
    w.run({ type: 'order.allocate', orderId: placed.body.id, txs: [tx(txId)], ratioLimit: 1n, ratioWeight: 1n });
    const settled = w.run({ type: 'order.settle', orderId: placed.body.id, landedTxIds: [txId], deliveredAt: 5_000 }) as any;
    expect(settled.effects.events[0]).toMatchObject({ type: 'order.confirmed', data: ids });
    const twin = (settled.effects.orderEvents ?? []).find((e: { type: string }) => e.type === 'order.confirmed');
    expect(twin.order).toMatchObject(ids);
  }
});
