/**
 * Order commands. Creation reserves the total in reserved_sun (nothing leaves the balance yet);
 * settlement on confirmation moves it with an `order_charge` journal (customer -> order revenue) and a
 * pro-rata `order_refund` journal when only some allocations landed; a failure releases the reservation.
 * Idempotency (client_order_id, Idempotency-Key) is decided here: one writer per account, race-free.
 */
import { availableSun, type Account } from '../account';
import { balanceCredited } from '../balance-credited';
import type { Command, CommandOf } from '../commands';
import { domainError, errorCatalog, type DomainError, type ErrorSlug } from '../errors';
import { forTransferAmount } from '../estimates';
import { eventIdFor, type DomainEvent } from '../events';
import { derivedId } from '../ids';
import { ledgerAccounts, revenueJournal, transferJournal, type Journal } from '../ledger';
import { routingFeeOf, routingFeeRefunded, routingFeeSun } from '../routing-fee';
import { activationOf, delegateHashes, orderJson } from './view';
import { closesAfterEnd, delivered, IDEMPOTENCY_TTL_MS, moveRefusal, partialRefund, sameRequest, type IdempotencyRecord, type Order } from './rules';
import type { Tier } from '../pricing';
import { isPlanOrder } from '../subscriptions/rules';
import { noEffects, rejected, type Effects, type Handler, type Outcome, type OrderView, type StateView } from '../outcome';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const big = (n: number | null) => (n === null ? null : BigInt(n));

function ordersOf(state: StateView): OrderView {
  if (!state.orders) throw new Error('order commands need the order state view');
  return state.orders;
}

function applied(status: 200 | 201 | 202, order: Order, effects: Effects = noEffects()): Outcome {
  return { kind: 'applied', status, body: orderJson(order), effects };
}

/** A command that no longer changes anything (a duplicate chain fact, a second signer): applied, no effects. */
function unchanged(order: Order): Outcome {
  return applied(200, order);
}

function liveRecord(view: OrderView, accountId: string, key: string | null, at: number): IdempotencyRecord | undefined {
  if (!key) return undefined;
  const record = view.idempotency(accountId, key);
  return record && record.expiresAt > at ? record : undefined;
}

/**
 * The amount and pay of an order: as the command says, or for a `for_transfer` order sized here from the
 * facts it carries (3047 when nothing is short; with a quote, the quote's amount must be what is short).
 */
function sizedForTransfer(c: CommandOf<'order.create'>): { amount: number | null; paySun: bigint } | DomainError {
  const f = c.forTransfer;
  if (!f) return { amount: c.amount, paySun: c.paySun };
  const amount = forTransferAmount(f);
  if (amount === 0) {
    return domainError('nothing_to_rent', `The sender has ${f.energyAvailable} energy free and the transfer needs ${f.energyNeeded}.`, { energy_needed: f.energyNeeded, energy_available: f.energyAvailable });
  }
  if (amount > f.maxAmount) {
    return domainError('amount_out_of_range', `The transfer needs ${amount} energy, above ${f.maxAmount}.`, { min_amount: f.minAmount, max_amount: f.maxAmount });
  }
  if (c.quoteId !== null) {
    return amount === c.amount ? { amount, paySun: c.paySun } : domainError('quote_mismatch', `The transfer needs ${amount} energy; the quote is for ${c.amount}.`);
  }
  const base = (c.priceSunPerUnit ?? 0n) * BigInt(amount);
  return { amount, paySun: base + routingFeeSun(base, f.routingFeeBps) };
}

export const createOrder: Handler<CommandOf<'order.create'>> = (state, c) => {
  const view = ordersOf(state);
  const account = state.account(c.accountId);
  if (!account) return rejected(domainError('not_found', 'No such account.'));

  const record = liveRecord(view, c.accountId, c.idempotencyKey, c.issuedAt);
  if (record) {
    if (record.scope !== 'create' || !sameRequest(record.requestHash, c.requestHash)) {
      return rejected(domainError('idempotency_conflict', 'This Idempotency-Key was used with a different request.'));
    }
    return applied(record.status as 200 | 201, view.byId(record.orderId) as Order);
  }
  if (c.clientOrderId !== null) {
    const existing = view.byClientId(c.accountId, c.clientOrderId);
    if (existing) {
      if (!sameRequest(existing.requestHash, c.requestHash)) {
        return rejected(domainError('idempotency_conflict', 'This client_order_id was used with a different request.', { field: 'client_order_id' }));
      }
      return applied(200, existing);
    }
  }
  if (c.quoteId !== null && (view.byQuote(c.accountId, c.quoteId) || (c.quoteExpiresAt !== null && c.issuedAt > c.quoteExpiresAt))) {
    return rejected(domainError('quote_expired', 'The quote has expired or was already used.'));
  }
  if (c.resource === 'activation' && c.receiverActive) {
    return rejected(domainError('invalid_request', 'The receiver is already activated.', { field: 'receiver' }));
  }
  if (!c.receiverActive && c.activate === false) {
    return rejected(domainError('receiver_not_activated', 'The receiver is not activated on chain and activate is false.'));
  }
  const sized = sizedForTransfer(c);
  if ('slug' in sized) return rejected(sized);
  const { amount, paySun } = sized;
  const totalSun = paySun + c.activateSun;
  if (c.maxPriceSun !== null && totalSun > c.maxPriceSun) {
    return rejected(domainError('price_above_limit', `The live total ${totalSun} SUN exceeds max_price_sun.`, { total_amount_sun: totalSun, max_price_sun: c.maxPriceSun }));
  }
  if (availableSun(account) < totalSun) {
    return rejected(domainError('insufficient_funds', 'The available balance cannot cover this order.', { required_sun: totalSun, available_sun: availableSun(account) }));
  }

  const order: Order = {
    id: derivedId('order', c.commandId),
    accountId: c.accountId,
    clientOrderId: c.clientOrderId,
    requestHash: c.requestHash,
    quoteId: c.quoteId,
    resource: c.resource,
    amount,
    deliveredAmount: null,
    partial: false,
    tier: c.tier as Tier | null,
    durationSeconds: c.durationSeconds,
    receiver: c.receiver,
    source: c.source as Order['source'],
    status: 'allocating',
    confirmStatus: 'unconfirmed',
    priceSunPerUnit: c.priceSunPerUnit,
    paySun,
    activateSun: c.activateSun,
    totalSun,
    refundedSun: 0n,
    supplier: c.supplier,
    ratio: null,
    allocations: [],
    delegatedAt: null,
    expiresAt: null,
    closeReason: null,
    closeRequestedAt: null,
    undelegations: [],
    reclaimHash: null,
    reclaimedAt: null,
    memo: c.memo,
    failure: null,
    createdAt: c.issuedAt,
    updatedAt: c.issuedAt,
    batchId: c.batchId ?? null,
    subscriptionId: c.subscriptionId ?? null,
  };
  const updated: Account = {
    ...account,
    reservedSun: account.reservedSun + totalSun,
    totals: { ...account.totals, ordersCreated: account.totals.ordersCreated + 1 },
    updatedAt: c.issuedAt,
  };
  const effects: Effects = { ...noEffects(), accounts: [updated], orders: [order] };
  if (c.idempotencyKey) {
    effects.idempotency = [{
      accountId: c.accountId, key: c.idempotencyKey, scope: 'create', requestHash: c.requestHash, orderId: order.id, status: 201,
      createdAt: c.issuedAt, expiresAt: c.issuedAt + IDEMPOTENCY_TTL_MS,
    }];
  }
  return applied(201, order, effects);
};

/** Spec ledger kinds: a plan's day is `subscription_fee`, a refill `subscription_usage`, every other order `order_charge`. */
function chargeKindOf(order: Order): 'subscription_fee' | 'subscription_usage' | 'order_charge' {
  if (order.source !== 'subscription') return 'order_charge';
  return isPlanOrder(order) ? 'subscription_fee' : 'subscription_usage';
}

function orderFor(state: StateView, accountId: string, orderId: string): Order | undefined {
  const order = ordersOf(state).byId(orderId);
  return order && order.accountId === accountId ? order : undefined;
}

export const allocateOrder: Handler<CommandOf<'order.allocate'>> = (state, c) => {
  const order = orderFor(state, c.accountId, c.orderId);
  if (!order) return rejected(domainError('not_found', 'No such order.'));
  const refusal = moveRefusal(order, order.status, 'order.allocate', ['allocating']);
  if (refusal) return rejected(refusal);
  // The first signed set stored wins; a second signer's transactions are never broadcast.
  if (order.allocations.length > 0 || c.txs.length === 0) return unchanged(order);
  const next: Order = {
    ...order,
    ratio: { limit: c.ratioLimit, weight: c.ratioWeight },
    allocations: c.txs.map((t) => ({ kind: t.kind === 'activate' ? 'activate' : 'delegate', from: t.from, amount: t.amount, sun: t.sun, txId: t.txId, signedTx: t.signedTx, landed: null })),
    updatedAt: c.issuedAt,
  };
  return applied(200, next, { ...noEffects(), orders: [next] });
};

/** Slugs an order fails with (spec section 7 and the codes this service adds there). */
export type OrderFailureSlug = Extract<ErrorSlug, 'delegation_failed' | 'supply_unavailable' | 'activation_failed'>;

/**
 * The order fails: nothing was ever charged (creation only reserved the total), so the reversal is the
 * release of that reservation, complete in this same command; `refund_complete` says so from the amounts.
 */
function failOrder(account: Account, order: Order, at: number, commandId: string, slug: OrderFailureSlug, message: string): Outcome {
  const entry = errorCatalog[slug];
  const released = order.totalSun;
  const next: Order = {
    ...order,
    status: 'failed',
    confirmStatus: 'confirm_failed',
    refundedSun: released,
    failure: { code: entry.code, slug, message, at },
    updatedAt: at,
  };
  const updated: Account = { ...account, reservedSun: account.reservedSun - released, updatedAt: at };
  const event: DomainEvent<'order.failed'> = {
    eventId: eventIdFor(commandId, 0),
    type: 'order.failed',
    accountId: order.accountId,
    createdAt: at,
    data: {
      order_id: order.id, client_order_id: order.clientOrderId, receiver: order.receiver, resource: order.resource, amount: big(order.amount),
      tier: order.tier, failure: { code: entry.code, slug, message }, charged_amount_sun: order.totalSun,
      refunded_amount_sun: released, refund_complete: released >= order.totalSun,
    },
  };
  return applied(200, next, { ...noEffects(), accounts: [updated], orders: [next], events: [event] });
}

export const settleOrder: Handler<CommandOf<'order.settle'>> = (state, c) => {
  const order = orderFor(state, c.accountId, c.orderId);
  const account = state.account(c.accountId);
  if (!order || !account) return rejected(domainError('not_found', 'No such order.'));
  // Settlement moves an order awaiting delivery to confirmed or failed; anything else is refused.
  const refusal = moveRefusal(order, 'confirmed', 'order.settle');
  if (refusal) return rejected(refusal);

  const landed = new Set(c.landedTxIds);
  const stranded = new Set(c.strandedTxIds ?? []);
  const allocations = order.allocations.map((a) => ({
    ...a, landed: landed.has(a.txId), ...(a.kind === 'delegate' && !landed.has(a.txId) && stranded.has(a.txId) ? { stranded: true as const } : {}),
  }));
  const activation = allocations.find((a) => a.kind === 'activate');
  const deliveredAmount = allocations.filter((a) => a.kind === 'delegate' && a.landed).reduce((s, a) => s + a.amount, 0);
  const withAllocations = { ...order, allocations };
  if (allocations.length === 0) return failOrder(account, withAllocations, c.issuedAt, c.commandId, 'supply_unavailable', 'No stake could be allocated to this order within the wait window.');
  if (activation && !activation.landed) return failOrder(account, withAllocations, c.issuedAt, c.commandId, 'activation_failed', 'The receiver could not be activated.');
  if (order.resource !== 'activation' && deliveredAmount === 0) {
    return failOrder(account, withAllocations, c.issuedAt, c.commandId, 'delegation_failed', 'No delegation was confirmed within the wait window.');
  }

  const isActivation = order.resource === 'activation';
  // Charged for an activation it did not perform (another order activated the receiver, or it was active
  // by the time the order was signed): that part comes back, with its own journal.
  const activationBack = !activation && order.activateSun > 0n ? order.activateSun : 0n;
  const resourceBack = isActivation ? 0n : partialRefund(order, deliveredAmount);
  const refund = resourceBack + activationBack;
  const next: Order = {
    ...withAllocations,
    // Verified on chain: `confirmed` with order.confirmed; the rental then starts (`active`) by the follow-up.
    status: 'confirmed',
    confirmStatus: 'confirmed',
    deliveredAmount: isActivation ? null : deliveredAmount,
    partial: !isActivation && deliveredAmount < (order.amount ?? 0),
    refundedSun: refund,
    delegatedAt: isActivation ? null : c.deliveredAt,
    expiresAt: isActivation || order.durationSeconds === null ? null : c.deliveredAt + order.durationSeconds * 1000,
    updatedAt: c.issuedAt,
  };
  const base = { accountId: order.accountId, commandId: c.commandId, orderId: order.id, memo: null, createdAt: c.issuedAt };
  // The routing fee of a provider-routed order is revenue of its own (docs/routing-fee.md), refunded pro rata.
  const fee = routingFeeOf(order);
  const feeBack = isActivation ? 0n : routingFeeRefunded(fee, order.amount, deliveredAmount);
  const customer = ledgerAccounts.customerTrx(order.accountId);
  const journals: Journal[] = [revenueJournal({ ...base, id: derivedId('journal', c.commandId, 0), kind: chargeKindOf(order) }, customer, order.totalSun, fee, true)];
  if (resourceBack > 0n) {
    journals.push(revenueJournal({ ...base, id: derivedId('journal', c.commandId, 1), kind: 'order_refund' }, customer, resourceBack, feeBack, false));
  }
  if (activationBack > 0n) {
    journals.push(transferJournal(
      { ...base, id: derivedId('journal', c.commandId, 2), kind: 'order_refund', memo: 'activation performed by another order' },
      'TRX', ledgerAccounts.orderRevenue, ledgerAccounts.customerTrx(order.accountId), activationBack,
    ));
  }
  const spent = order.totalSun - refund;
  const updated: Account = {
    ...account,
    balanceSun: account.balanceSun - spent,
    reservedSun: account.reservedSun - order.totalSun,
    totals: {
      ...account.totals,
      spentSun: account.totals.spentSun + spent,
      refundedSun: account.totals.refundedSun + refund,
      energyDelegated: account.totals.energyDelegated + (order.resource === 'energy' ? BigInt(deliveredAmount) : 0n),
    },
    updatedAt: c.issuedAt,
  };
  const hashes = delegateHashes(next);
  const event: DomainEvent<'order.confirmed'> = {
    eventId: eventIdFor(c.commandId, 0),
    type: 'order.confirmed',
    accountId: order.accountId,
    createdAt: c.issuedAt,
    data: {
      order_id: order.id, client_order_id: order.clientOrderId, batch_id: order.batchId ?? null, subscription_id: order.subscriptionId ?? null, resource: order.resource,
      amount: big(order.amount), delivered_amount: big(next.deliveredAmount), partial: next.partial, tier: order.tier,
      duration_seconds: order.durationSeconds, receiver: order.receiver, delegate_hash: hashes[0] ?? null, delegate_hashes: hashes,
      delegated_at: iso(next.delegatedAt), expires_at: iso(next.expiresAt), total_amount_sun: order.totalSun, refunded_amount_sun: refund,
      activation: activationOf(next),
    },
  };
  // Spec section 3, confirmed -> active by processing: a command of its own after this one, never in the
  // same step (the topic shows both transitions); the processor applies it right after this one, in the same
  // transaction (processor/apply-batch.ts appliesInline). An activation has no rental: it stays confirmed.
  const followUps: Command[] = isActivation ? [] : [{
    type: 'order.deliver', commandId: derivedId('command', 'order-activate', order.id), accountId: order.accountId, issuedAt: c.issuedAt,
    deadlineAt: null, replyTo: null, orderId: order.id, step: 'activate', txIds: [], at: c.deliveredAt,
  }];
  return applied(200, next, { ...noEffects(), accounts: [updated], journals, orders: [next], events: [event], followUps });
};

/**
 * Delivery steps besides settlement. `broadcast`: the node accepted every delegation of the stored set;
 * the order is `delegated` (a hash, not yet verified). `activate`: a verified order enters its rental.
 */
export const deliverOrder: Handler<CommandOf<'order.deliver'>> = (state, c) => {
  const order = orderFor(state, c.accountId, c.orderId);
  if (!order) return rejected(domainError('not_found', 'No such order.'));
  const to = c.step === 'broadcast' ? 'delegated' : 'active';
  const refusal = moveRefusal(order, to, `order.deliver ${c.step}`);
  if (refusal) return rejected(refusal);
  if (c.step === 'broadcast') {
    const stored = order.allocations.filter((a) => a.kind === 'delegate').map((a) => a.txId);
    const named = new Set(c.txIds);
    if (stored.length === 0 || !stored.every((id) => named.has(id))) {
      return rejected(domainError('order_status_conflict', 'A broadcast step names every delegation of the stored set.', { order_id: order.id, tx_ids: c.txIds }));
    }
  }
  const next: Order = { ...order, status: to, updatedAt: c.issuedAt };
  return applied(200, next, { ...noEffects(), orders: [next] });
};

export const closeOrder: Handler<CommandOf<'order.close'>> = (state, c) => {
  const view = ordersOf(state);
  const order = orderFor(state, c.accountId, c.orderId);
  if (!order) return rejected(domainError('not_found', 'No such order.'));
  const finished = order.status === 'expired' || order.status === 'reclaimed';

  if (c.step === 'request') {
    const record = liveRecord(view, c.accountId, c.idempotencyKey, c.issuedAt);
    if (record && (record.scope !== `reclaim:${order.id}`)) {
      return rejected(domainError('idempotency_conflict', 'This Idempotency-Key was used with a different request.'));
    }
    if (finished) return applied(200, order);
    if (order.supplier === 'provider') return rejected(domainError('reclaim_unavailable'));
    if (order.status === 'delegated') {
      return rejected(domainError('nothing_to_reclaim', 'The delegation is broadcast but not verified yet (confirm_status unconfirmed); reclaim it once it is confirmed.'));
    }
    if (!delivered.includes(order.status) || order.resource === 'activation') return rejected(domainError('nothing_to_reclaim', 'This order has nothing delegated to reclaim.'));
    if (order.closeReason !== null) return applied(202, order);
    const next: Order = { ...order, closeReason: 'reclaimed', closeRequestedAt: c.at, updatedAt: c.issuedAt };
    const effects: Effects = { ...noEffects(), orders: [next] };
    if (c.idempotencyKey && !record) {
      effects.idempotency = [{
        accountId: c.accountId, key: c.idempotencyKey, scope: `reclaim:${order.id}`, requestHash: order.id, orderId: order.id, status: 202,
        createdAt: c.issuedAt, expiresAt: c.issuedAt + IDEMPOTENCY_TTL_MS,
      }];
    }
    return applied(202, next, effects);
  }

  // A refunded or failed order with stake still on chain: its close changes no status (see closesAfterEnd).
  const ended = closesAfterEnd(order);
  if (c.step === 'signed') {
    // An ended order keeps its status while its stake goes back; every other order must be delivered to close.
    const refusal = ended ? null : moveRefusal(order, order.status, 'order.close signed', delivered);
    if (refusal) return rejected(refusal);
    // First signing: only while nothing is stored. Re-signing: only while what it replaces is still stored.
    const stored = new Set(order.undelegations.map((u) => u.txId));
    const replaces = c.replaces ?? [];
    if (replaces.length === 0 ? stored.size > 0 : !replaces.every((id) => stored.has(id))) return unchanged(order);
    // No transaction: the scheduler found nothing of this order left on chain to take back. It is done.
    if (c.txs.length === 0) return finishClose({ ...order, undelegations: [], reclaimHash: null }, c);
    const next: Order = {
      ...order,
      closeReason: order.closeReason ?? c.reason,
      closeRequestedAt: order.closeRequestedAt ?? c.at,
      undelegations: c.txs.map((t) => ({ from: t.from, sun: t.sun, txId: t.txId, signedTx: t.signedTx })),
      reclaimHash: c.txs[0].txId,
      updatedAt: c.issuedAt,
    };
    return applied(200, next, { ...noEffects(), orders: [next] });
  }

  // landed
  const refusal = ended ? null : moveRefusal(order, order.closeReason ?? c.reason, 'order.close landed');
  if (refusal) return rejected(refusal);
  if (order.undelegations.length === 0) return unchanged(order);
  return finishClose(order, c);
};

/** The order leaves `active`: expired or reclaimed, with its event. An ended order only records the stake back. */
function finishClose(order: Order, c: CommandOf<'order.close'>): Outcome {
  const reason = order.closeReason ?? c.reason;
  if (closesAfterEnd(order)) {
    const done: Order = { ...order, closeReason: reason, closeRequestedAt: order.closeRequestedAt ?? c.at, reclaimedAt: c.at, updatedAt: c.issuedAt };
    return applied(200, done, { ...noEffects(), orders: [done] });
  }
  const next: Order = { ...order, status: reason, closeReason: reason, closeRequestedAt: order.closeRequestedAt ?? c.at, reclaimedAt: c.at, updatedAt: c.issuedAt };
  const common = {
    order_id: order.id, client_order_id: order.clientOrderId, receiver: order.receiver, resource: order.resource, amount: big(order.amount),
    reclaim_hash: order.reclaimHash, refunded_amount_sun: order.refundedSun,
  };
  const event: DomainEvent =
    reason === 'expired'
      ? { eventId: eventIdFor(c.commandId, 0), type: 'order.expired', accountId: order.accountId, createdAt: c.issuedAt, data: { ...common, expired_at: iso(c.at) as string } }
      : { eventId: eventIdFor(c.commandId, 0), type: 'order.reclaimed', accountId: order.accountId, createdAt: c.issuedAt, data: { ...common, reclaimed_at: iso(c.at) as string } };
  return applied(200, next, { ...noEffects(), orders: [next], events: [event] });
}

export const refundOrder: Handler<CommandOf<'order.refund'>> = (state, c) => {
  const order = orderFor(state, c.accountId, c.orderId);
  const account = state.account(c.accountId);
  if (!order || !account) return rejected(domainError('not_found', 'No such order.'));
  const refusal = moveRefusal(order, 'refunded', 'order.refund');
  if (refusal) return rejected(refusal);
  const amount = order.totalSun - order.refundedSun;
  const failure = c.undelivered
    ? { code: errorCatalog.delegation_failed.code, slug: 'delegation_failed', message: 'The delegation is not on chain; the charge is reversed.' }
    : null;
  const next: Order = failure
    ? { ...order, status: 'failed', confirmStatus: 'confirm_failed', refundedSun: order.totalSun, failure: { ...failure, at: c.issuedAt }, updatedAt: c.issuedAt }
    : { ...order, status: 'refunded', refundedSun: order.totalSun, updatedAt: c.issuedAt };
  // What is left of the routing fee after a partial delivery's pro-rata refund comes back from its account.
  const fee = routingFeeOf(order);
  const feeLeft = fee - (order.deliveredAmount === null ? 0n : routingFeeRefunded(fee, order.amount, order.deliveredAmount));
  const journal = revenueJournal(
    { id: derivedId('journal', c.commandId), accountId: order.accountId, kind: 'order_refund', commandId: c.commandId, orderId: order.id, memo: c.reason, createdAt: c.issuedAt },
    ledgerAccounts.customerTrx(order.accountId), amount, feeLeft, false,
  );
  const balanceSun = account.balanceSun + amount;
  const updated: Account = {
    ...account, balanceSun, updatedAt: c.issuedAt,
    totals: { ...account.totals, spentSun: account.totals.spentSun - amount, refundedSun: account.totals.refundedSun + amount },
  };
  const at = iso(c.issuedAt) as string;
  const common = { order_id: order.id, client_order_id: order.clientOrderId, receiver: order.receiver, resource: order.resource, amount: big(order.amount) };
  const events: DomainEvent[] = [
    failure ? {
      eventId: eventIdFor(c.commandId, 0), type: 'order.failed', accountId: order.accountId, createdAt: c.issuedAt,
      data: { ...common, tier: order.tier, failure, charged_amount_sun: order.totalSun, refunded_amount_sun: order.totalSun, refund_complete: true },
    } : {
      eventId: eventIdFor(c.commandId, 0), type: 'order.refunded', accountId: order.accountId, createdAt: c.issuedAt,
      data: {
        ...common, delivered_amount: big(order.deliveredAmount), partial: order.partial, reason: c.reason, charged_amount_sun: order.totalSun,
        refunded_amount_sun: order.totalSun, refund_complete: true, refunded_at: at,
      },
    },
    balanceCredited(eventIdFor(c.commandId, 1), order.accountId, c.issuedAt, {
      reason: 'refund', currency: 'TRX', amount_sun: amount, balance_sun: balanceSun, reference_id: order.id, asset: 'TRX',
    }),
  ];
  return applied(200, next, { ...noEffects(), accounts: [updated], journals: [journal], orders: [next], events });
};
