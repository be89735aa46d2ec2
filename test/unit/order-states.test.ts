/**
 * The order state machine over plain data (spec section 3): the guard every order command passes
 * (moveRefusal over canMove), the delivery steps (broadcast -> delegated, settle -> confirmed, its
 * follow-up -> active), refusals recorded identically on a replay, the failure codes of order.failed,
 * fills per class, and the synchronous answer's rendering.
 */
import { emptyIdentity, emptyTotals, type Account } from '../../services/domain/account';
import { applyCommand } from '../../services/domain/apply';
import type { Command } from '../../services/domain/commands';
import { orderJson, storedStatusesShownAs } from '../../services/domain/orders/view';
import { canMove, closesAfterEnd, moveRefusal, orderStatuses, type Order, type OrderStatus } from '../../services/domain/orders/rules';
import { fillPriceSun, fillsOf } from '../../services/domain/orders/view';
import type { Outcome, OrderView, StateView } from '../../services/domain/outcome';

const ctx = { network: 'nile' as const, brand: 'energy' };

/** A one-account world; `run` applies a command, then its follow-ups as the log would deliver them. */
function world(balanceSun = 10_000_000n) {
  const accounts = new Map<string, Account>([['acc_1', {
    id: 'acc_1', brand: 'energy', network: 'nile', ownerAddress: null, displayName: null, status: 'active', balanceSun, balanceUsdt: 0n, reservedSun: 0n,
    totals: emptyTotals(), ...emptyIdentity(), createdAt: 0, updatedAt: 0,
  } as Account]]);
  const orders = new Map<string, Order>();
  const view: OrderView = { byId: (id) => orders.get(id), byClientId: () => undefined, byQuote: () => undefined, idempotency: () => undefined };
  const state: StateView = { account: (id) => accounts.get(id), orders: view };
  const log: Outcome[] = [];
  let n = 0;
  const run = (body: Record<string, unknown>, followUps = true): any => {
    const command = { commandId: `cmd_${++n}`, accountId: 'acc_1', issuedAt: 1_000_000 + n, deadlineAt: null, replyTo: null, ...body } as Command;
    const outcome = applyCommand(state, command as never, ctx);
    log.push(outcome);
    if (outcome.kind === 'applied') {
      for (const a of outcome.effects.accounts) accounts.set(a.id, a);
      for (const o of outcome.effects.orders ?? []) orders.set(o.id, o);
      if (followUps) for (const f of outcome.effects.followUps) run(f as never);
    }
    return outcome;
  };
  return { accounts, orders, run, log };
}

const create = (extra: Record<string, unknown> = {}) => ({
  type: 'order.create', clientOrderId: null, idempotencyKey: null, requestHash: 'h1', resource: 'energy', amount: 65_000, tier: '5m', durationSeconds: 300,
  receiver: 'TR', receiverActive: true, activate: null, maxPriceSun: null, quoteId: null, quoteExpiresAt: null, priceSunPerUnit: 40n, paySun: 2_600_000n,
  activateSun: 0n, source: 'api', memo: null, supplier: 'pool', ...extra,
});
const delegate = (txId: string, amount = 65_000) => ({ kind: 'delegate', from: 'TP', amount, sun: 1n, txId, signedTx: '{}' });
const activate = (txId: string) => ({ kind: 'activate', from: 'TP', amount: 0, sun: 1n, txId, signedTx: '{}' });
const allocate = (orderId: string, txs: unknown[]) => ({ type: 'order.allocate', orderId, txs, ratioLimit: 1n, ratioWeight: 1n });
const settle = (orderId: string, landedTxIds: string[]) => ({ type: 'order.settle', orderId, landedTxIds, deliveredAt: 5_000 });
const broadcast = (orderId: string, txIds: string[]) => ({ type: 'order.deliver', orderId, step: 'broadcast', txIds, at: 4_000 });

test('the guard allows exactly the table: a move where canMove says so, a staying step only from the statuses it names', () => {
  for (const from of orderStatuses) {
    for (const to of orderStatuses) {
      const refusal = moveRefusal({ id: 'ord_1', status: from }, to, 'cmd');
      if (from === to) expect(refusal).not.toBeNull();
      else expect(refusal === null).toBe(canMove(from, to));
    }
  }
  expect(moveRefusal({ id: 'ord_1', status: 'allocating' }, 'allocating', 'order.allocate', ['allocating'])).toBeNull();
  expect(moveRefusal({ id: 'ord_1', status: 'failed' }, 'failed', 'order.allocate', ['allocating'])).toEqual({
    slug: 'order_status_conflict', message: 'order.allocate cannot act on an order in status failed.', details: { order_id: 'ord_1', from: 'failed', to: 'failed' },
  });
  const path: OrderStatus[] = ['allocating', 'delegated', 'confirmed', 'active', 'expired', 'refunded'];
  for (let i = 1; i < path.length; i += 1) expect(canMove(path[i - 1], path[i])).toBe(true);
  expect(canMove('allocating', 'active')).toBe(false);
  expect(canMove('active', 'confirmed')).toBe(false);
  expect(canMove('active', 'failed')).toBe(false);
});

test('delivery: broadcast -> delegated (hash, unverified), settle -> confirmed with order.confirmed, its follow-up -> active', () => {
  const w = world();
  const id = w.run(create()).body.id;
  w.run(allocate(id, [delegate('d1', 40_000), delegate('d2', 25_000)]));
  // The broadcast must name every delegation of the stored set.
  expect(w.run(broadcast(id, ['d1']))).toMatchObject({ kind: 'rejected', error: { slug: 'order_status_conflict' } });
  const delegated = w.run(broadcast(id, ['d1', 'd2']));
  // Stored `delegated`; read (this answer, GET) as `active` with its hash, as POST /v1/orders answers it.
  expect(w.orders.get(id)).toMatchObject({ status: 'delegated', confirmStatus: 'unconfirmed' });
  expect(delegated.body).toMatchObject({ status: 'active', confirm_status: 'unconfirmed', delegate_hash: 'd1', delegate_hashes: ['d1', 'd2'] });
  expect(delegated.effects.events).toEqual([]);
  expect(w.run(broadcast(id, ['d1', 'd2']))).toMatchObject({ kind: 'rejected', error: { slug: 'order_status_conflict', details: { from: 'delegated', to: 'delegated' } } });

  const settled = w.run(settle(id, ['d1', 'd2']), false);
  expect(settled.body).toMatchObject({ status: 'confirmed', confirm_status: 'confirmed', delivered_amount: 65_000 });
  expect(settled.effects.events.map((e: any) => e.type)).toEqual(['order.confirmed']);
  expect(settled.effects.orderEvents.map((e: any) => e.type)).toEqual(['order.confirmed']);
  const [followUp] = settled.effects.followUps;
  expect(followUp).toMatchObject({ type: 'order.deliver', step: 'activate', orderId: id, commandId: expect.stringMatching(/^cmd_/) });

  const active = w.run(followUp);
  expect(active.body).toMatchObject({ status: 'active', confirm_status: 'confirmed' });
  // No webhook event of its own (spec: confirmed -> active has none); the order-events topic records it.
  expect(active.effects.events).toEqual([]);
  expect(active.effects.orderEvents.map((e: any) => e.type)).toEqual(['order.active']);
  expect(w.run(followUp)).toMatchObject({ kind: 'rejected', error: { slug: 'order_status_conflict', details: { from: 'active', to: 'active' } } });
  // A broadcast report arriving after the settlement is refused: an active order does not go back.
  expect(w.run(broadcast(id, ['d1', 'd2']))).toMatchObject({ kind: 'rejected', error: { details: { from: 'active', to: 'delegated' } } });
});

test('a settlement straight from allocating (the broadcast report lost) still passes confirmed; an activation order stays confirmed', () => {
  const w = world();
  const id = w.run(create()).body.id;
  w.run(allocate(id, [delegate('d1')]));
  expect(w.run(settle(id, ['d1'])).body.status).toBe('confirmed');
  expect(w.orders.get(id)?.status).toBe('active');

  const act = w.run(create({ resource: 'activation', amount: null, tier: null, durationSeconds: null, receiverActive: false, priceSunPerUnit: null, paySun: 0n, activateSun: 1_000_000n, receiver: 'TNEW' })).body.id;
  w.run(allocate(act, [activate('a1')]));
  const done = w.run(settle(act, ['a1']));
  expect(done.effects.followUps).toEqual([]);
  expect(w.orders.get(act)?.status).toBe('confirmed');
});

test('every order command is refused, with the move it asked for, where the table does not allow it; nothing changes', () => {
  const w = world();
  const id = w.run(create()).body.id;
  w.run(allocate(id, [delegate('d1')]));
  const failed = w.run(settle(id, []));
  expect(failed.body.status).toBe('failed');
  const before = structuredClone(w.orders.get(id));
  const account = structuredClone(w.accounts.get('acc_1'));
  const refused = [
    allocate(id, [delegate('d9')]),
    broadcast(id, ['d1']),
    settle(id, ['d1']),
    { type: 'order.deliver', orderId: id, step: 'activate', txIds: [], at: 6_000 },
    { type: 'order.close', orderId: id, step: 'signed', reason: 'expired', txs: [{ ...delegate('u1'), kind: 'undelegate' }], idempotencyKey: null, at: 9_000, replaces: [] },
    { type: 'order.close', orderId: id, step: 'landed', reason: 'expired', txs: [], idempotencyKey: null, at: 9_000, replaces: [] },
    { type: 'order.refund', orderId: id, reason: 'dispute' },
  ].map((c) => w.run(c));
  expect(refused.map((o) => [o.kind, o.error?.slug, o.error?.details?.from, o.error?.details?.to])).toEqual([
    ['rejected', 'order_status_conflict', 'failed', 'failed'],
    ['rejected', 'order_status_conflict', 'failed', 'delegated'],
    ['rejected', 'order_status_conflict', 'failed', 'confirmed'],
    ['rejected', 'order_status_conflict', 'failed', 'active'],
    ['rejected', 'order_status_conflict', 'failed', 'failed'],
    ['rejected', 'order_status_conflict', 'failed', 'expired'],
    ['rejected', 'order_status_conflict', 'failed', 'refunded'],
  ]);
  expect(w.orders.get(id)).toEqual(before);
  expect(w.accounts.get('acc_1')).toEqual(account);
});

test('a replay of the same commands refuses the same ones with the same recorded reason', () => {
  const script = (w: ReturnType<typeof world>) => {
    const id = w.run(create()).body.id;
    w.run(allocate(id, [delegate('d1')]));
    w.run(settle(id, ['d1']));
    w.run(broadcast(id, ['d1']));
    w.run(settle(id, ['d1']));
    w.run({ type: 'order.refund', orderId: id, reason: 'dispute' });
    w.run({ type: 'order.refund', orderId: id, reason: 'dispute' });
  };
  const live = world();
  const replay = world();
  script(live);
  script(replay);
  const summary = (log: Outcome[]) => log.map((o) => (o.kind === 'rejected' ? ['rejected', o.error] : ['applied', o.body.status]));
  expect(summary(replay.log)).toEqual(summary(live.log));
  expect(summary(live.log).filter(([kind]) => kind === 'rejected')).toHaveLength(3);
});

test('order.failed carries the real code: 5004 nothing allocated, 5005 activation not landed, 5002 delegation not landed; the release is complete', () => {
  const w = world();
  const cases: Array<[unknown[], string[], number, string]> = [
    [[], [], 5004, 'supply_unavailable'],
    [[activate('a1'), delegate('d1')], ['d1'], 5005, 'activation_failed'],
    [[delegate('d2')], [], 5002, 'delegation_failed'],
  ];
  for (const [txs, landed, code, slug] of cases) {
    const id = w.run(create(txs.some((t: any) => t.kind === 'activate') ? { receiverActive: false, activateSun: 1_500_000n } : {})).body.id;
    if (txs.length > 0) w.run(allocate(id, txs));
    const total = w.orders.get(id)!.totalSun;
    const failed = w.run(settle(id, landed));
    expect(failed.body).toMatchObject({ status: 'failed', refunded_amount_sun: total, failure: { code, slug } });
    expect(failed.effects.events[0]).toMatchObject({
      type: 'order.failed', data: { failure: { code, slug }, charged_amount_sun: total, refunded_amount_sun: total, refund_complete: true },
    });
  }
  // Nothing charged, nothing left reserved.
  expect(w.accounts.get('acc_1')).toMatchObject({ balanceSun: 10_000_000n, reservedSun: 0n });
});

test('fills: what was really used, per class (pool instant, provider market), at the price per unit; none when nothing landed', () => {
  const w = world();
  const pool = w.run(create()).body.id;
  expect(fillsOf(w.orders.get(pool)!)).toEqual([]);
  w.run(allocate(pool, [delegate('p1', 40_000), delegate('p2', 25_000)]));
  expect(fillsOf(w.orders.get(pool)!)).toEqual([{ class: 'instant', amount: 65_000, price_sun: 40 }]);
  w.run(settle(pool, ['p1']));
  expect(fillsOf(w.orders.get(pool)!)).toEqual([{ class: 'instant', amount: 40_000, price_sun: 40 }]);

  const provider = w.run(create({ supplier: 'provider' })).body.id;
  w.run(allocate(provider, [delegate('m1')]));
  w.run(settle(provider, ['m1']));
  expect(fillsOf(w.orders.get(provider)!)).toEqual([{ class: 'market', amount: 65_000, price_sun: 40 }]);

  const failed = w.run(create()).body.id;
  w.run(allocate(failed, [delegate('f1')]));
  w.run(settle(failed, []));
  expect(fillsOf(w.orders.get(failed)!)).toEqual([]);
});

test('fills of a provider order carry the routing fee: amount x price_sun explains the resource charge (docs/routing-fee.md)', () => {
  const w = world();
  // 3 % on 65 000 units at 40 SUN: fee 78 000 SUN, pay 2 678 000 SUN, 41.2 SUN per unit.
  const provider = w.run(create({ supplier: 'provider', paySun: 2_678_000n })).body.id;
  w.run(allocate(provider, [delegate('m1')]));
  w.run(settle(provider, ['m1']));
  expect(fillsOf(w.orders.get(provider)!)).toEqual([{ class: 'market', amount: 65_000, price_sun: 41.2 }]);
  // A partial delivery refunds the fee pro rata: the price per unit of what landed is the same.
  const partial = w.run(create({ supplier: 'provider', paySun: 2_678_000n })).body.id;
  w.run(allocate(partial, [delegate('q1', 40_000), delegate('q2', 25_000)]));
  w.run(settle(partial, ['q1']));
  expect(fillsOf(w.orders.get(partial)!)).toEqual([{ class: 'market', amount: 40_000, price_sun: 41.2 }]);
  // A pool order pays no fee, whatever its pay amount says: the price row's.
  expect(fillPriceSun({ supplier: 'pool', priceSunPerUnit: 40n, amount: 65_000, paySun: 2_678_000n })).toBe(40);
  // A fee that does not divide the units: rounded to a millionth of a SUN (7 units, fee ceil(8.4) = 9).
  expect(fillPriceSun({ supplier: 'provider', priceSunPerUnit: 40n, amount: 7, paySun: 289n })).toBe(41.285714);
  expect(fillPriceSun({ supplier: 'provider', priceSunPerUnit: null, amount: 7, paySun: 289n })).toBeNull();
});

test('a delegation that landed but was not covered is stranded: the order fails, refunded, and its close takes the stake back', () => {
  const w = world();
  const id = w.run(create()).body.id;
  w.run(allocate(id, [delegate('s1')]));
  const failed = w.run({ ...settle(id, []), strandedTxIds: ['s1'] });
  expect(failed.body).toMatchObject({ status: 'failed', failure: { slug: 'delegation_failed' } });
  const order = w.orders.get(id)!;
  expect(order.allocations).toEqual([expect.objectContaining({ txId: 's1', landed: false, stranded: true })]);
  // Nothing delivered: no fill, no delegation shown; but the stake is the order's to take back.
  expect(fillsOf(order)).toEqual([]);
  expect(closesAfterEnd(order)).toBe(true);
  const undelegation = { kind: 'undelegate', from: 'TP', amount: 0, sun: 1n, txId: 'u1', signedTx: '{}' };
  const close = { type: 'order.close', orderId: id, reason: 'expired', idempotencyKey: null, at: 6_000, replaces: [] };
  expect(w.run({ ...close, step: 'signed', txs: [undelegation] }).kind).toBe('applied');
  w.run({ ...close, step: 'landed', txs: [] });
  expect(w.orders.get(id)).toMatchObject({ status: 'failed', reclaimedAt: 6_000, reclaimHash: 'u1' });
  // Without stranded ids (older logs), the same settlement strands nothing.
  const plain = w.run(create()).body.id;
  w.run(allocate(plain, [delegate('s2')]));
  w.run(settle(plain, []));
  expect(closesAfterEnd(w.orders.get(plain)!)).toBe(false);
});

test('every read of an order, the synchronous answer among them, gives a broadcast delegation as active; every other status as stored', () => {
  const w = world();
  const id = w.run(create()).body.id;
  w.run(allocate(id, [delegate('d1')]));
  expect(orderJson(w.orders.get(id)!)).toMatchObject({ status: 'allocating', delegate_hash: 'd1' });
  w.run(broadcast(id, ['d1']));
  expect(orderJson(w.orders.get(id)!)).toMatchObject({ status: 'active', confirm_status: 'unconfirmed', delegate_hash: 'd1' });
  w.run(settle(id, ['d1']));
  expect(orderJson(w.orders.get(id)!)).toMatchObject({ status: 'active', confirm_status: 'confirmed' });
  // A list filtered on `active` finds the broadcast ones too; `delegated` is never read, so it selects none.
  expect(storedStatusesShownAs(['active'])).toEqual(['active', 'delegated']);
  expect(storedStatusesShownAs(['delegated', 'confirmed'])).toEqual(['confirmed']);
});
