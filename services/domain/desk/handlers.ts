/**
 * Desk commands (contract.md section 12). A payment in range is credited to the desk's account (it is the
 * desk's TRX now) and becomes an ordinary order of that account (source `transfer`, total = the payment),
 * delivered, settled, expired and reclaimed by the order roles like any other. A payment refused is an
 * order `failed` with 3048 at once, its refund owed back to the sender; the desk returner signs it, and
 * the return's steps come back here. One payment, one order, one return: the payment row is the guard.
 */
import { emptyTotals, type Account } from '../account';
import type { CommandOf } from '../commands';
import { domainError, errorCatalog } from '../errors';
import { eventIdFor, type DomainEvent } from '../events';
import { derivedId } from '../ids';
import { assertBalanced, ledgerAccounts, type Journal } from '../ledger';
import type { Order } from '../orders/rules';
import { createOrder } from '../orders/handlers';
import { noEffects, rejected, type ApplyContext, type Effects, type Handler, type Outcome, type StateView } from '../outcome';
import { decideDeskPayment, deskAccountId, refundOf, type DeskPayment } from './rules';

type PaymentCommand = CommandOf<'desk.payment'>;

function paymentBody(p: DeskPayment): Record<string, unknown> {
  return { payment_id: p.paymentId, txid: p.txid, status: p.status, order_id: p.orderId, refund_sun: p.refundSun, return_txid: p.returnTxId };
}

function applied(status: 200 | 201, p: DeskPayment, effects: Effects = noEffects()): Outcome {
  return { kind: 'applied', status, body: paymentBody(p), effects };
}

/** The desk's account, created by its first payment: a real account with no owner, so nobody signs in to it. */
function deskAccount(state: StateView, c: PaymentCommand, ctx: ApplyContext): Account {
  return state.account(c.accountId) ?? {
    id: c.accountId, brand: ctx.brand, network: ctx.network, ownerAddress: null, displayName: 'Transfer desk', status: 'active',
    balanceSun: 0n, balanceUsdt: 0n, reservedSun: 0n, totals: emptyTotals(), email: null, depositAddress: null, depositIndex: null,
    depositIssuedAt: null, retiredDepositAddresses: [], createdAt: c.issuedAt, updatedAt: c.issuedAt,
  };
}

function received(c: PaymentCommand): Journal {
  return assertBalanced({
    id: derivedId('journal', c.commandId, 0), accountId: c.accountId, kind: 'deposit', commandId: c.commandId, orderId: null,
    memo: `transfer desk payment ${c.txid}`, createdAt: c.issuedAt,
    lines: [
      { ledgerAccount: ledgerAccounts.depositsTrx, currency: 'TRX', amount: -c.amount },
      { ledgerAccount: ledgerAccounts.customerTrx(c.accountId), currency: 'TRX', amount: c.amount },
    ],
  });
}

/** The order the payment places (or would have placed), through the same rules as any order's creation. */
function placeOrder(state: StateView, account: Account, c: PaymentCommand, amount: number, activateSun: bigint, paySun: bigint): { order: Order; account: Account } {
  const credited: Account = { ...account, balanceSun: account.balanceSun + c.amount, totals: { ...account.totals, depositedSun: account.totals.depositedSun + c.amount } };
  const view: StateView = { ...state, account: (id) => (id === credited.id ? credited : state.account(id)) };
  const outcome = createOrder(view, {
    type: 'order.create', commandId: derivedId('command', 'desk-order', c.paymentId), accountId: c.accountId, issuedAt: c.issuedAt,
    deadlineAt: null, replyTo: null, clientOrderId: null, idempotencyKey: null, requestHash: c.txid, resource: 'energy', amount,
    tier: c.terms.tier, durationSeconds: c.terms.durationSeconds, receiver: c.receiver as string, receiverActive: c.receiverActive, activate: null,
    maxPriceSun: null, quoteId: null, quoteExpiresAt: null, priceSunPerUnit: c.terms.priceSunPerUnit, paySun, activateSun, source: 'transfer',
    memo: `transfer desk payment ${c.txid}`, supplier: c.supplier,
  }, { network: account.network, brand: account.brand });
  if (outcome.kind !== 'applied' || !outcome.effects.orders?.[0]) throw new Error(`desk order for ${c.txid} not placed: ${JSON.stringify(outcome)}`);
  return { order: outcome.effects.orders[0], account: outcome.effects.accounts[0] };
}

/**
 * The watcher saw a confirmed payment to the desk. Seen before (a re-read the command id did not catch):
 * nothing. Not a plain TRX transfer: recorded only. In range: credited and ordered. Else: refused and owed back.
 */
export const deskPayment: Handler<PaymentCommand> = (state, c, ctx) => {
  if (c.accountId !== deskAccountId(ctx.network, ctx.brand)) return rejected(domainError('invalid_request', 'Desk payments belong to the desk account.'));
  const known = state.desk?.payment(c.paymentId);
  if (known) return applied(200, known);
  const account = deskAccount(state, c, ctx);
  const base: DeskPayment = {
    paymentId: c.paymentId, txid: c.txid, logIndex: c.logIndex, asset: c.asset, kind: c.kind, sender: c.sender, amount: c.amount, memo: c.memo,
    receiver: c.receiver, blockNumber: c.blockNumber, blockTimestamp: c.blockTimestamp, status: 'recorded', orderId: null, refusal: null,
    refundSun: 0n, returnFeeSun: c.returnFeeSun, returnTxId: null, returnSignedTx: null, returnedAt: null, createdAt: c.issuedAt, updatedAt: c.issuedAt,
  };
  const created = state.account(c.accountId) ? [] : [account];
  if (c.asset !== 'TRX' || c.kind !== 'transfer' || c.sender === null || c.receiver === null) {
    return applied(201, base, { ...noEffects(), accounts: created, deskPayments: [base] });
  }
  const decision = decideDeskPayment({ amountSun: c.amount, receiver: c.receiver, receiverActive: c.receiverActive, terms: c.terms });
  if (decision.kind === 'order') {
    const placed = placeOrder(state, account, c, decision.amount, decision.activateSun, decision.paySun);
    const payment: DeskPayment = { ...base, status: 'ordered', orderId: placed.order.id };
    return applied(201, payment, { ...noEffects(), accounts: [placed.account], journals: [received(c)], orders: [placed.order], deskPayments: [payment] });
  }
  return refuse(state, account, c, decision.reason, decision.message, base);
};

/**
 * A refused payment: its order is `failed` with 3048 from the start. The payment leaves the desk's balance
 * in the same command: the refund to the sender and the return's bandwidth to network fees.
 */
function refuse(state: StateView, account: Account, c: PaymentCommand, reason: DeskPayment['refusal'], message: string, base: DeskPayment): Outcome {
  const refundSun = refundOf(c.amount, c.returnFeeSun);
  const placed = placeOrder(state, account, c, 0, 0n, c.amount);
  const entry = errorCatalog.transfer_not_accepted;
  const order: Order = {
    ...placed.order, amount: null, status: 'failed', confirmStatus: 'confirm_failed', refundedSun: refundSun,
    failure: { code: entry.code, slug: 'transfer_not_accepted', message, at: c.issuedAt },
  };
  const back = sendBack(placed.account, c.amount, refundSun, { commandId: c.commandId, issuedAt: c.issuedAt, txid: c.txid, orderId: order.id });
  // The reservation the order's creation made goes with the credit: the desk keeps nothing of it.
  const after: Account = { ...back.account, reservedSun: back.account.reservedSun - c.amount };
  const payment: DeskPayment = { ...base, status: refundSun > 0n ? 'returning' : 'returned', orderId: order.id, refusal: reason, refundSun };
  const event: DomainEvent<'order.failed'> = {
    eventId: eventIdFor(c.commandId, 0), type: 'order.failed', accountId: c.accountId, createdAt: c.issuedAt,
    data: {
      order_id: order.id, client_order_id: null, receiver: order.receiver, resource: 'energy', amount: null, tier: order.tier,
      failure: { code: entry.code, slug: 'transfer_not_accepted', message }, charged_amount_sun: c.amount, refunded_amount_sun: refundSun,
      refund_complete: refundSun >= c.amount,
    },
  };
  return applied(201, payment, {
    ...noEffects(), accounts: [after], journals: [received(c), back.journal], orders: [order], deskPayments: [payment], events: [event],
  });
}

/**
 * A payment leaving the desk's balance: `refundSun` owed to the sender (TRX out on chain), the rest the
 * bandwidth the return burns.
 */
function sendBack(account: Account, amount: bigint, refundSun: bigint, at: { commandId: string; issuedAt: number; txid: string; orderId: string }): { account: Account; journal: Journal } {
  const journal = assertBalanced({
    id: derivedId('journal', at.commandId, 1), accountId: account.id, kind: 'withdrawal', commandId: at.commandId, orderId: at.orderId,
    memo: `transfer desk return ${at.txid}`, createdAt: at.issuedAt,
    lines: [
      { ledgerAccount: ledgerAccounts.customerTrx(account.id), currency: 'TRX', amount: -amount },
      { ledgerAccount: ledgerAccounts.depositsTrx, currency: 'TRX', amount: refundSun },
      { ledgerAccount: ledgerAccounts.networkFees, currency: 'TRX', amount: amount - refundSun },
    ].filter((l) => l.amount !== 0n) as Journal['lines'],
  });
  return { account: { ...account, balanceSun: account.balanceSun - amount, updatedAt: at.issuedAt }, journal };
}

/** What an accepted payment's order did not deliver: owed back like a refused payment, from the desk's balance. */
function owe(state: StateView, payment: DeskPayment, c: CommandOf<'desk.return'>): Outcome {
  const account = state.account(c.accountId);
  if (!account || payment.orderId === null) return rejected(domainError('not_found', 'No such desk account or order.'));
  const owedSun = c.amountSun < payment.amount ? c.amountSun : payment.amount;
  const refundSun = refundOf(owedSun, payment.returnFeeSun);
  const back = sendBack(account, owedSun, refundSun, { commandId: c.commandId, issuedAt: c.issuedAt, txid: payment.txid, orderId: payment.orderId });
  const next: DeskPayment = { ...payment, status: refundSun > 0n ? 'returning' : 'returned', refusal: 'undelivered', refundSun, updatedAt: c.issuedAt };
  return applied(200, next, { ...noEffects(), accounts: [back.account], journals: [back.journal], deskPayments: [next] });
}

/** The returner's steps: store the signed return (first one wins, or the replacement of a dead one), then its landing. */
export const deskReturn: Handler<CommandOf<'desk.return'>> = (state, c) => {
  const payment = state.desk?.payment(c.paymentId);
  if (!payment) return rejected(domainError('not_found', 'No such desk payment.'));
  if (c.step === 'owed') return payment.status === 'ordered' ? owe(state, payment, c) : applied(200, payment);
  if (payment.status !== 'returning') return applied(200, payment);
  if (c.step === 'signed') {
    const stored = payment.returnTxId;
    if (stored !== null && c.replaces !== stored) return applied(200, payment);
    if (stored === null && c.replaces !== null) return applied(200, payment);
    const next: DeskPayment = { ...payment, returnTxId: c.txId, returnSignedTx: c.signedTx, updatedAt: c.issuedAt };
    return applied(200, next, { ...noEffects(), deskPayments: [next] });
  }
  if (payment.returnTxId !== c.txId) return applied(200, payment);
  const next: DeskPayment = { ...payment, status: 'returned', returnedAt: c.at, updatedAt: c.issuedAt };
  return applied(200, next, { ...noEffects(), deskPayments: [next] });
};
