/**
 * Plans (contract.md section 9): a standing delegation billed daily in advance. Each paid day is an
 * ordinary order (source `subscription`, tier 1d, the plan's daily fee, ledger kind `subscription_fee`)
 * placed by the order handler itself, so it is reserved, delegated, confirmed and expired like any order.
 * A day that cannot be charged pauses the plan (`billing_failed`) and takes the delegation back through an
 * `order.close` follow-up; a day the pool could not deliver pauses it (`reserve_exhausted`).
 */
import type { Command, CommandMeta, CommandOf } from '../commands';
import { domainError } from '../errors';
import { eventIdFor, type DomainEvent } from '../events';
import { createOrder } from '../orders/handlers';
import { derivedId } from '../ids';
import { orderCommandFrom } from '../order-command';
import { noEffects, rejected, type ApplyContext, type Handler, type Outcome, type StateView } from '../outcome';
import { PLAN_SECONDS } from '../pricing';
import type { PlanPricing } from './commands';
import { PLAN_ORDER_MEMO, planName, type Subscription } from './rules';
import { subscriptionJson } from './view';

export const DAY_MS = PLAN_SECONDS * 1000;

/** One paid day of the plan: the order handler's outcome for it (rejected 4001 when the balance cannot cover it). */
export function placePlanDay(state: StateView, c: CommandMeta, sub: Subscription, p: PlanPricing, ctx: ApplyContext): Outcome {
  const { commandId, accountId, issuedAt, deadlineAt, replyTo, energyPrice5mSun } = c;
  return createOrder(state, {
    commandId, issuedAt, deadlineAt, replyTo, energyPrice5mSun,
    ...orderCommandFrom({
      accountId, clientOrderId: null, idempotencyKey: null, quoteId: null, quoteExpiresAt: null, resource: sub.resource, amount: sub.amount,
      tier: '1d', durationSeconds: PLAN_SECONDS, receiver: sub.receiver, receiverActive: p.receiverActive, activate: null, maxPriceSun: null,
      priceSunPerUnit: p.priceSunPerUnit, paySun: p.dailyFeeSun, activateSun: p.activateSun, source: 'subscription', memo: PLAN_ORDER_MEMO,
      supplier: p.supplier, subscriptionId: sub.id,
    }),
  }, ctx);
}

/** The plan after a paid day placed at `at`, with its `subscription.charged` event. */
export function chargedDay(c: CommandMeta, sub: Subscription, day: Outcome & { kind: 'applied' }, at: number): Outcome {
  const charged: Subscription = {
    ...sub, status: 'active', reason: null, lastOrderId: String(day.body.id), nextBillingAt: at + DAY_MS, updatedAt: c.issuedAt,
  };
  const event: DomainEvent = {
    eventId: eventIdFor(c.commandId, 0), type: 'subscription.charged', accountId: c.accountId, createdAt: c.issuedAt,
    data: {
      subscription_id: sub.id, receiver: sub.receiver, plan: planName(sub), amount_sun: sub.dailyFeeSun ?? 0n,
      next_billing_at: new Date(charged.nextBillingAt as number).toISOString(),
    },
  };
  return {
    kind: 'applied', status: 201, body: subscriptionJson(charged, c.issuedAt),
    effects: { ...day.effects, subscriptions: [charged], events: [...day.effects.events, event] },
  };
}

/** Takes the plan's current delegation back (the scheduler signs and lands the undelegation). */
export function undelegateFollowUp(c: CommandMeta, sub: Subscription): Command[] {
  if (sub.lastOrderId === null) return [];
  return [{
    type: 'order.close', commandId: derivedId('command', c.commandId, 'plan-undelegate'), accountId: sub.accountId, issuedAt: c.issuedAt,
    deadlineAt: null, replyTo: null, orderId: sub.lastOrderId, step: 'request', reason: 'reclaimed', txs: [], idempotencyKey: null, at: c.issuedAt, replaces: [],
  }];
}

/** Paused with its event (and the delegation taken back unless the day was never delivered). */
export function pausedPlan(c: CommandMeta, sub: Subscription, reason: 'billing_failed' | 'reserve_exhausted' | 'user', undelegate: boolean): Outcome {
  const paused: Subscription = { ...sub, status: 'paused', reason, updatedAt: c.issuedAt };
  const event: DomainEvent = {
    eventId: eventIdFor(c.commandId, 0), type: 'subscription.paused', accountId: c.accountId, createdAt: c.issuedAt,
    data: { subscription_id: sub.id, receiver: sub.receiver, reason },
  };
  return {
    kind: 'applied', status: 200, body: subscriptionJson(paused, c.issuedAt),
    effects: { ...noEffects(), subscriptions: [paused], events: [event], followUps: undelegate ? undelegateFollowUp(c, sub) : [] },
  };
}

function ownPlan(state: StateView, accountId: string, id: string): Subscription | undefined {
  const sub = state.subscriptions?.byId(id);
  return sub && sub.accountId === accountId && sub.kind === 'plan' ? sub : undefined;
}

export const chargePlan: Handler<CommandOf<'subscription.charge'>> = (state, c, ctx) => {
  const sub = ownPlan(state, c.accountId, c.subscriptionId);
  if (!sub) return rejected(domainError('not_found', 'No such plan.'));
  // Already billed (a repeated watcher pass) or no longer active: nothing to charge.
  if (sub.status !== 'active' || sub.nextBillingAt !== c.billingAt) return { kind: 'applied', status: 200, body: subscriptionJson(sub, c.issuedAt), effects: noEffects() };
  const day = placePlanDay(state, c, sub, c, ctx);
  if (day.kind === 'rejected') {
    if (day.error.slug === 'insufficient_funds') return pausedPlan(c, sub, 'billing_failed', true);
    return day;
  }
  // The next day counts from the one billed, not from when the watcher got to it. The previous day's
  // delegation is taken back only once the new day's is delivered (the watcher's full pass, see
  // plansToUndelegate): never a gap, and both held only until that undelegation lands.
  return chargedDay(c, sub, day, c.billingAt);
};

export const pausePlan: Handler<CommandOf<'subscription.pause'>> = (state, c) => {
  const sub = ownPlan(state, c.accountId, c.subscriptionId);
  if (!sub) return rejected(domainError('not_found', 'No such plan.'));
  if (sub.status !== 'active' || sub.lastOrderId !== c.orderId) return { kind: 'applied', status: 200, body: subscriptionJson(sub, c.issuedAt), effects: noEffects() };
  return pausedPlan(c, sub, c.reason, false);
};
