/**
 * The processor's subscription handlers: pure, over the subscription state the processor loaded. A refill
 * is decided here, in the account's partition: either the ordinary order is created (the order handler
 * itself, so it is reserved, charged and delivered like any order) and the subscription counts it, or the
 * subscription is suspended with its reason, both in one transaction with the command.
 */
import { availableSun } from '../account';
import type { CommandOf } from '../commands';
import { domainError } from '../errors';
import { eventIdFor, type DomainEvent } from '../events';
import { createOrder } from '../orders/handlers';
import { derivedId } from '../ids';
import { orderCommandFrom } from '../order-command';
import { sameRequest } from '../orders/rules';
import { noEffects, rejected, type Handler, type Outcome, type StateView } from '../outcome';
import {
  MAX_LIVE_SUBSCRIPTIONS, refillBlocker, refillInFlight, refillsOn, suspensionCleared, utcDay,
  type Subscription, type SubscriptionView,
} from './rules';
import { subscriptionJson } from './view';
import { chargedDay, pausedPlan, placePlanDay, undelegateFollowUp } from './plan-handlers';

function subsOf(state: StateView): SubscriptionView {
  if (!state.subscriptions) throw new Error('subscription commands need the subscription state view');
  return state.subscriptions;
}

function ownSubscription(state: StateView, accountId: string, id: string): Subscription | undefined {
  const sub = subsOf(state).byId(id);
  return sub && sub.accountId === accountId ? sub : undefined;
}

const changed = (status: 200 | 201, sub: Subscription, at: number, events: DomainEvent[] = []): Outcome => ({
  kind: 'applied', status, body: subscriptionJson(sub, at), effects: { ...noEffects(), subscriptions: [sub], events },
});

const unchanged = (sub: Subscription, at: number, extra: Record<string, unknown> = {}): Outcome => ({
  kind: 'applied', status: 200, body: { ...subscriptionJson(sub, at), ...extra }, effects: noEffects(),
});

export const createSubscription: Handler<CommandOf<'subscription.create'>> = (state, c, ctx) => {
  if (!state.account(c.accountId)) return rejected(domainError('not_found', 'No such account.'));
  const view = subsOf(state);
  if (c.clientSubscriptionId !== null) {
    const existing = view.byClientId(c.accountId, c.clientSubscriptionId);
    if (existing) {
      if (!sameRequest(existing.requestHash, c.requestHash)) {
        return rejected(domainError('idempotency_conflict', 'This client_subscription_id was used with a different request.', { field: 'client_subscription_id' }));
      }
      return unchanged(existing, c.issuedAt);
    }
  }
  const live = view.liveOf(c.accountId);
  if (live.length >= MAX_LIVE_SUBSCRIPTIONS) {
    return rejected(domainError('subscription_limit', undefined, { limit: MAX_LIVE_SUBSCRIPTIONS, used: live.length }));
  }
  const same = live.find((s) => s.receiver === c.receiver && s.resource === c.resource);
  if (same) return rejected(domainError('subscription_exists', undefined, { subscription_id: same.id }));
  const sub: Subscription = {
    id: derivedId('subscription', c.commandId),
    accountId: c.accountId,
    clientSubscriptionId: c.clientSubscriptionId,
    requestHash: c.requestHash,
    kind: c.kind,
    status: 'active',
    receiver: c.receiver,
    resource: c.resource,
    amount: c.amount,
    tier: c.tier,
    thresholdAmount: c.thresholdAmount,
    maxPriceSun: c.maxPriceSun,
    maxRefillsPerDay: c.maxRefillsPerDay,
    refillsToday: 0,
    refillDay: null,
    lastRefillAt: null,
    lastOrderId: null,
    reason: null,
    dailyFeeSun: c.kind === 'plan' && c.plan ? c.plan.dailyFeeSun : null,
    nextBillingAt: null,
    createdAt: c.issuedAt,
    updatedAt: c.issuedAt,
  };
  if (c.kind === 'refill') return changed(201, sub, c.issuedAt);
  // A plan's first day is charged at creation: 402 (nothing stored) when it cannot be.
  if (!c.plan) return rejected(domainError('invalid_request', 'A plan needs its price.', { field: 'kind' }));
  const day = placePlanDay(state, c, sub, c.plan, ctx);
  return day.kind === 'rejected' ? day : chargedDay(c, sub, day, c.issuedAt);
};

export const updateSubscription: Handler<CommandOf<'subscription.update'>> = (state, c, ctx) => {
  const sub = ownSubscription(state, c.accountId, c.subscriptionId);
  if (!sub) return rejected(domainError('not_found', 'No such subscription.'));
  if (sub.status === 'ended') return rejected(domainError('invalid_request', 'The subscription has ended.', { field: 'id' }));
  let next: Subscription = { ...sub, ...c.changes, updatedAt: c.issuedAt };
  if (sub.kind === 'plan') {
    if (c.plan) next = { ...next, dailyFeeSun: c.plan.dailyFeeSun };
    if (c.isPaused === true && sub.status !== 'paused') return pausedPlan(c, next, 'user', true);
    // Unpausing charges the day again (402 when it cannot) and delegates anew.
    if (c.isPaused === false && sub.status === 'paused') {
      if (!c.plan) return rejected(domainError('invalid_request', 'Unpausing a plan needs its price.', { field: 'is_paused' }));
      const day = placePlanDay(state, c, next, c.plan, ctx);
      return day.kind === 'rejected' ? day : chargedDay(c, next, day, c.issuedAt);
    }
    return changed(200, next, c.issuedAt);
  }
  const events: DomainEvent[] = [];
  if (c.isPaused === true && sub.status !== 'paused') {
    next = { ...next, status: 'paused', reason: 'user' };
    events.push({
      eventId: eventIdFor(c.commandId, 0), type: 'subscription.paused', accountId: c.accountId, createdAt: c.issuedAt,
      data: { subscription_id: sub.id, receiver: sub.receiver, reason: 'user' },
    });
  }
  if (c.isPaused === false && sub.status === 'paused') next = { ...next, status: 'active', reason: null };
  return changed(200, next, c.issuedAt, events);
};

export const endSubscription: Handler<CommandOf<'subscription.end'>> = (state, c) => {
  const sub = ownSubscription(state, c.accountId, c.subscriptionId);
  if (!sub) return rejected(domainError('not_found', 'No such subscription.'));
  if (sub.status === 'ended') return unchanged(sub, c.issuedAt);
  const ended = changed(200, { ...sub, status: 'ended', updatedAt: c.issuedAt }, c.issuedAt);
  // A plan's delegation is taken back (no refund of the day); a paused plan's already was.
  if (sub.kind !== 'plan' || sub.status === 'paused' || ended.kind !== 'applied') return ended;
  return { ...ended, effects: { ...ended.effects, followUps: undelegateFollowUp(c, sub) } };
};

function lastOrderOf(state: StateView, sub: Subscription) {
  if (sub.lastOrderId === null) return undefined;
  return state.orders?.byId(sub.lastOrderId) ?? subsOf(state).loadedOrder(sub.lastOrderId);
}

export const refillSubscription: Handler<CommandOf<'subscription.refill'>> = (state, c, ctx) => {
  const sub = ownSubscription(state, c.accountId, c.subscriptionId);
  if (!sub) return rejected(domainError('not_found', 'No such subscription.'));
  const account = state.account(c.accountId);
  if (!account) return rejected(domainError('not_found', 'No such account.'));
  // Not active (suspended, paused, ended) or a refill still on its way: the watcher saw an older state.
  if (sub.status !== 'active' || sub.kind !== 'refill' || refillInFlight(lastOrderOf(state, sub))) return unchanged(sub, c.issuedAt, { refilled: false });

  const totalSun = c.paySun + c.activateSun;
  const available = availableSun(account);
  const blocker = refillBlocker(sub, c.issuedAt, totalSun, available);
  if (blocker) {
    const suspended: Subscription = { ...sub, status: 'suspended', reason: blocker, updatedAt: c.issuedAt };
    return changed(200, suspended, c.issuedAt, [{
      eventId: eventIdFor(c.commandId, 0), type: 'subscription.suspended', accountId: c.accountId, createdAt: c.issuedAt,
      data: { subscription_id: sub.id, receiver: sub.receiver, reason: blocker, required_sun: totalSun, available_sun: available },
    }]);
  }

  const { commandId, accountId, issuedAt, deadlineAt, replyTo, energyPrice5mSun } = c;
  const order = createOrder(state, {
    commandId, issuedAt, deadlineAt, replyTo, energyPrice5mSun,
    ...orderCommandFrom({
      accountId, clientOrderId: null, idempotencyKey: null, quoteId: null, quoteExpiresAt: null, resource: sub.resource, amount: sub.amount,
      tier: sub.tier, durationSeconds: c.durationSeconds, receiver: sub.receiver, receiverActive: c.receiverActive, activate: null,
      maxPriceSun: sub.maxPriceSun, priceSunPerUnit: c.priceSunPerUnit, paySun: c.paySun, activateSun: c.activateSun, source: 'subscription',
      memo: null, supplier: c.supplier, subscriptionId: sub.id,
    }),
  }, ctx);
  if (order.kind !== 'applied') return order;
  const orderId = String(order.body.id);
  const refillsToday = refillsOn(sub, issuedAt) + 1;
  const refilled: Subscription = {
    ...sub, refillsToday, refillDay: utcDay(issuedAt), lastRefillAt: issuedAt, lastOrderId: orderId, updatedAt: issuedAt,
  };
  const event: DomainEvent = {
    eventId: eventIdFor(commandId, 0), type: 'subscription.refilled', accountId, createdAt: issuedAt,
    data: {
      subscription_id: sub.id, order_id: orderId, receiver: sub.receiver, resource: sub.resource, amount: sub.amount, tier: sub.tier,
      trigger_available: c.triggerAvailable, threshold_amount: sub.thresholdAmount ?? 0, total_amount_sun: totalSun, refills_today: refillsToday,
    },
  };
  return {
    kind: 'applied', status: 201, body: { ...subscriptionJson(refilled, issuedAt), refilled: true },
    effects: { ...order.effects, subscriptions: [refilled], events: [...order.effects.events, event] },
  };
};

export const resumeSubscription: Handler<CommandOf<'subscription.resume'>> = (state, c) => {
  const sub = ownSubscription(state, c.accountId, c.subscriptionId);
  if (!sub) return rejected(domainError('not_found', 'No such subscription.'));
  const account = state.account(c.accountId);
  if (!account) return rejected(domainError('not_found', 'No such account.'));
  if (sub.status !== 'suspended' || !suspensionCleared(sub, c.issuedAt, c.paySun + c.activateSun, availableSun(account))) {
    return unchanged(sub, c.issuedAt, { resumed: false });
  }
  return changed(200, { ...sub, status: 'active', reason: null, updatedAt: c.issuedAt }, c.issuedAt);
};
