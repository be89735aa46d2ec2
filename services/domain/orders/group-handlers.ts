/**
 * The grouped chain facts: `order.allocations` (a broadcaster pass's signed sets of one account) and
 * `order.settlements` (a confirmer pass's settlements of one account). Each entry is applied as the
 * single command it stands for (`order.allocate`, `order.settle`, with that command's derived id, so its
 * journals and events carry the ids the single command gives them), over the state the entries before it
 * left, and accepted or refused alone: one refused entry changes nothing of the others. One command, one
 * claim and one record on the log per pass and account instead of one per order.
 */
import type { Account } from '../account';
import type { Command, CommandOf } from '../commands';
import { derivedId } from '../ids';
import type { Order } from './rules';
import { moveRefusal } from './rules';
import { allocateOrder, settleOrder } from './handlers';
import { noEffects, type ApplyContext, type Effects, type Handler, type OrderView, type Outcome, type StateView } from '../outcome';

export type EntryOutcome = { order_id: string; outcome: 'applied' | 'unchanged' | 'rejected'; error?: string };

/** The state the next entry reads: the group's changes so far over the slice's state. */
class GroupState {
  readonly accounts = new Map<string, Account>();
  readonly orders = new Map<string, Order>();
  readonly effects: Effects = noEffects();
  readonly view: StateView;

  constructor(base: StateView) {
    const orders = base.orders as OrderView;
    const view: OrderView = {
      byId: (id) => this.orders.get(id) ?? orders.byId(id),
      byClientId: (a, c) => orders.byClientId(a, c),
      byQuote: (a, q) => orders.byQuote(a, q),
      idempotency: (a, k) => orders.idempotency(a, k),
    };
    this.view = { ...base, account: (id) => this.accounts.get(id) ?? base.account(id), orders: view };
  }

  /** Takes one entry's outcome in; what the entry came to. */
  absorb(orderId: string, outcome: Outcome, adjust: (order: Order) => Order = (o) => o): EntryOutcome {
    if (outcome.kind === 'rejected') return { order_id: orderId, outcome: 'rejected', error: outcome.error.slug };
    const e = outcome.effects;
    if ((e.orders ?? []).length === 0 && e.accounts.length === 0) return { order_id: orderId, outcome: 'unchanged' };
    for (const a of e.accounts) this.accounts.set(a.id, a);
    for (const o of e.orders ?? []) this.orders.set(o.id, adjust(o));
    this.effects.journals.push(...e.journals);
    this.effects.events.push(...e.events);
    this.effects.followUps.push(...e.followUps);
    return { order_id: orderId, outcome: 'applied' };
  }

  outcome(entries: EntryOutcome[], extra: Record<string, unknown> = {}): Outcome {
    const effects: Effects = { ...this.effects, accounts: [...this.accounts.values()], orders: [...this.orders.values()] };
    return { kind: 'applied', status: 200, body: { entries, ...extra }, effects };
  }
}

/** The single command an entry stands for: its derived id (as the broadcaster and confirmer gave it), the group's time. */
function entryMeta(c: Command, step: string, orderId: string) {
  return { commandId: derivedId('command', step, orderId), accountId: c.accountId, issuedAt: c.issuedAt, deadlineAt: null, replyTo: null };
}

/**
 * Each entry as its `order.allocate`. An entry marked `broadcast` whose set is applied here (this entry's
 * set, delegations only) leaves `allocating` for `delegated` in the same step: its delegations are on their
 * way to the node (the broadcaster sends them once this command is on the log, and again from the applied
 * set after a crash), and an answer waiting for it says `active` with its hash (view.ts shownStatus). The
 * body names those orders (`delegated`): the processor tells the waiting API processes after the commit.
 */
export const allocateOrders: Handler<CommandOf<'order.allocations'>> = (state, c, ctx: ApplyContext) => {
  const group = new GroupState(state);
  const delegated: string[] = [];
  const entries = c.entries.map((e) => {
    const single: CommandOf<'order.allocate'> = {
      ...entryMeta(c, 'order-allocate', e.orderId), type: 'order.allocate', orderId: e.orderId, txs: e.txs, ratioLimit: e.ratioLimit, ratioWeight: e.ratioWeight,
    };
    const sent = e.broadcast && e.txs.length > 0 && e.txs.every((t) => t.kind === 'delegate');
    return group.absorb(e.orderId, allocateOrder(group.view, single, ctx), (order) => {
      if (!sent || order.status !== 'allocating' || moveRefusal(order, 'delegated', 'order.allocations broadcast')) return order;
      delegated.push(order.id);
      return { ...order, status: 'delegated' };
    });
  });
  return group.outcome(entries, { delegated });
};

/** Each entry as its `order.settle` (its follow-up, the rental's start, applied right after it as before). */
export const settleOrders: Handler<CommandOf<'order.settlements'>> = (state, c, ctx: ApplyContext) => {
  const group = new GroupState(state);
  const entries = c.entries.map((e) => {
    const single: CommandOf<'order.settle'> = {
      ...entryMeta(c, 'order-settle', e.orderId), type: 'order.settle', orderId: e.orderId, landedTxIds: e.landedTxIds, deliveredAt: e.deliveredAt,
      ...(e.strandedTxIds && e.strandedTxIds.length > 0 ? { strandedTxIds: e.strandedTxIds } : {}),
    };
    return group.absorb(e.orderId, settleOrder(group.view, single, ctx));
  });
  return group.outcome(entries);
};
