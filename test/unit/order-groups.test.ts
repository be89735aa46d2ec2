/**
 * The grouped chain facts, pure: `order.allocations` and `order.settlements` come to what the single
 * commands they stand for come to (orders, accounts, journals and events with the same ids), each entry is
 * accepted or refused alone, a repeat changes nothing, and a set applied as broadcast reads `active`
 * (unconfirmed) with its hash while the order-events topic still shows its allocation.
 */
import avro from 'avsc';
import { applyCommand } from '../../services/domain/apply';
import type { Command } from '../../services/domain/commands';
import { derivedId } from '../../services/domain/ids';
import type { Effects, StateView } from '../../services/domain/outcome';
import { bigintLongHook } from '../../services/platform/wire/avro-long';
import { commandFromWire, commandToWire } from '../../services/platform/wire/commands';
import { readSchema } from '../../services/platform/wire/registry';
import { fundedAccount, OrderMemory } from '../support/order-memory';

const ctx = { network: 'nile' as const, brand: 'energy' };
const T = 2_000_000;

function world() {
  const accounts = new Map([['acc_1', fundedAccount()]]);
  const orders = new OrderMemory();
  const view: StateView = { account: (id) => accounts.get(id), orders };
  const effects: Effects[] = [];
  let n = 0;
  const run = (body: Record<string, unknown>): any => {
    const command = { commandId: `cmd_${++n}`, accountId: 'acc_1', issuedAt: 1_000_000 + n, deadlineAt: null, replyTo: null, ...body } as Command;
    const outcome = applyCommand(view, command as never, ctx);
    if (outcome.kind === 'applied') {
      effects.push(outcome.effects);
      for (const a of outcome.effects.accounts) accounts.set(a.id, a);
      for (const o of outcome.effects.orders ?? []) orders.orders.set(o.id, o);
      for (const f of outcome.effects.followUps) run(f as never);
    }
    return outcome;
  };
  const ids = [1, 2, 3].map((i) => run({
    type: 'order.create', clientOrderId: null, idempotencyKey: null, requestHash: `h${i}`, resource: 'energy', amount: 65_000, tier: '5m', durationSeconds: 300,
    receiver: `TR${i}`, receiverActive: true, activate: null, maxPriceSun: null, quoteId: null, quoteExpiresAt: null, priceSunPerUnit: 40n, paySun: 2_600_000n,
    activateSun: 0n, source: 'api', memo: null, supplier: 'pool',
  }).body.id as string);
  return { accounts, orders, run, ids, effects };
}

const tx = (id: string, amount = 65_000, kind = 'delegate') => ({ kind, from: 'TP', amount, sun: 1n, txId: id, signedTx: '{}' });
const alloc = (orderId: string, i: number) => ({ orderId, txs: [tx(`t${i}`)], ratioLimit: 1n, ratioWeight: 1n });
const settlement = (orderId: string, i: number) => ({ orderId, landedTxIds: i === 2 ? [] : [`t${i}`], deliveredAt: T + 5 });
const journalsOf = (w: ReturnType<typeof world>) => w.effects.flatMap((e) => e.journals);
const eventsOf = (w: ReturnType<typeof world>) => w.effects.flatMap((e) => e.events);

test('a group comes to what its single commands come to: orders, balance, journals and events with the same ids', () => {
  const single = world();
  single.ids.forEach((id, i) => single.run({ type: 'order.allocate', commandId: derivedId('command', 'order-allocate', id), issuedAt: T, ...alloc(id, i) }));
  single.ids.forEach((id, i) => single.run({ type: 'order.settle', commandId: derivedId('command', 'order-settle', id), issuedAt: T + 10, ...settlement(id, i) }));

  const grouped = world();
  const allocated = grouped.run({ type: 'order.allocations', issuedAt: T, entries: grouped.ids.map((id, i) => ({ ...alloc(id, i), broadcast: false })) });
  expect(allocated.body.entries.map((e: any) => e.outcome)).toEqual(['applied', 'applied', 'applied']);
  const settled = grouped.run({ type: 'order.settlements', issuedAt: T + 10, entries: grouped.ids.map(settlement) });
  expect(settled.body.entries.map((e: any) => e.outcome)).toEqual(['applied', 'applied', 'applied']);

  expect([...grouped.orders.orders.values()]).toEqual([...single.orders.orders.values()]);
  expect(grouped.orders.byId(grouped.ids[0])).toMatchObject({ status: 'active', confirmStatus: 'confirmed' });
  expect(grouped.orders.byId(grouped.ids[2])).toMatchObject({ status: 'failed' });
  // Two charged, one released: the account threads through the entries.
  expect(grouped.accounts.get('acc_1')).toEqual(single.accounts.get('acc_1'));
  expect(grouped.accounts.get('acc_1')).toMatchObject({ balanceSun: 100_000_000n - 2n * 2_600_000n, reservedSun: 0n });
  expect(journalsOf(grouped)).toEqual(journalsOf(single));
  expect(eventsOf(grouped).map((e) => e.eventId)).toEqual(eventsOf(single).map((e) => e.eventId));
});

test('each entry is decided alone, and a repeat of a group changes nothing', () => {
  const w = world();
  const [a, b, c] = w.ids;
  w.run({ type: 'order.allocations', issuedAt: T, entries: [{ ...alloc(a, 0), broadcast: false }, { ...alloc(b, 1), broadcast: false }] });
  // b's set is stored: a second set for it changes nothing; an order nobody knows is refused; c is allocated.
  const second = w.run({ type: 'order.allocations', issuedAt: T + 1, entries: [{ ...alloc(b, 9), broadcast: false }, { ...alloc('ord_nobody', 8), broadcast: false }, { ...alloc(c, 2), broadcast: false }] });
  expect(second.body.entries).toEqual([
    { order_id: b, outcome: 'unchanged' }, { order_id: 'ord_nobody', outcome: 'rejected', error: 'not_found' }, { order_id: c, outcome: 'applied' },
  ]);
  expect(w.orders.byId(b)!.allocations.map((x) => x.txId)).toEqual(['t1']);
  w.run({ type: 'order.settlements', issuedAt: T + 10, entries: [settlement(a, 0)] });
  const balance = w.accounts.get('acc_1');
  // a is settled: its entry is refused, b's still settles.
  const again = w.run({ type: 'order.settlements', issuedAt: T + 20, entries: [settlement(a, 0), settlement(b, 1)] });
  expect(again.body.entries.map((e: any) => [e.order_id, e.outcome, e.error])).toEqual([[a, 'rejected', 'order_status_conflict'], [b, 'applied', undefined]]);
  expect(w.accounts.get('acc_1')!.balanceSun).toBe(balance!.balanceSun - 2_600_000n);
  const repeat = w.run({ type: 'order.settlements', issuedAt: T + 30, entries: [settlement(a, 0), settlement(b, 1)] });
  expect(repeat.body.entries.map((e: any) => e.outcome)).toEqual(['rejected', 'rejected']);
  expect(repeat.effects).toMatchObject({ accounts: [], orders: [], journals: [], events: [] });
});

test('a set applied as broadcast is delegated (active, unconfirmed, its hash), its allocation still on the topic; one with an activation is not', () => {
  const w = world();
  const [a, b] = w.ids;
  const out = w.run({
    type: 'order.allocations', issuedAt: T,
    entries: [{ ...alloc(a, 0), broadcast: true }, { orderId: b, txs: [tx('act', 0, 'activate'), tx('t1')], ratioLimit: 1n, ratioWeight: 1n, broadcast: true }],
  });
  expect(out.body.delegated).toEqual([a]);
  expect(w.orders.byId(a)!.status).toBe('delegated');
  expect(w.orders.byId(b)!.status).toBe('allocating');
  const events = out.effects.orderEvents.filter((e: any) => e.order.id === a);
  expect(events.map((e: any) => [e.type, e.order.status])).toEqual([['order.allocated', 'allocating']]);
  // The order's later reads: active with its hash, unconfirmed, until the confirmer settles it.
  const reread = w.run({ type: 'order.allocations', issuedAt: T + 1, entries: [{ ...alloc(a, 0), broadcast: true }] });
  expect(reread.body).toMatchObject({ entries: [{ order_id: a, outcome: 'rejected' }], delegated: [] });
  const settled = w.run({ type: 'order.settlements', issuedAt: T + 10, entries: [settlement(a, 0)] });
  expect(settled.body.entries[0].outcome).toBe('applied');
  expect(w.orders.byId(a)!.status).toBe('active');
});

test('both groups survive the Avro schema of account-commands unchanged, and a record of the older single commands still decodes', () => {
  const type = avro.Type.forSchema(JSON.parse(readSchema('account-command.avsc')), { typeHook: bigintLongHook as never });
  const meta = { commandId: 'cmd_g', accountId: 'acc_1', issuedAt: T, deadlineAt: null, replyTo: null };
  const commands = [
    { ...meta, type: 'order.allocations', entries: [{ ...alloc('ord_a', 0), broadcast: true }, { ...alloc('ord_b', 1), broadcast: false }] },
    { ...meta, type: 'order.settlements', entries: [settlement('ord_a', 0), { ...settlement('ord_b', 2), strandedTxIds: ['t2'] }] },
    { ...meta, type: 'order.allocate', ...alloc('ord_c', 3) },
    { ...meta, type: 'order.deliver', orderId: 'ord_c', step: 'broadcast', txIds: ['t3'], at: T },
  ] as Command[];
  for (const c of commands) expect(commandFromWire(type.fromBuffer(type.toBuffer(commandToWire(c))))).toEqual(c);
});
