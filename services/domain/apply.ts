/**
 * The processor's "apply command to state": a pure function over plain data. Kafka and PostgreSQL stay
 * at the edges (services/processor), so every rule here is unit-testable.
 */
import type { Command, CommandType } from './commands';
import { adjustBalance } from './handlers/adjust-balance';
import { assignDepositAddress } from './handlers/assign-deposit-address';
import { createAccount } from './handlers/create-account';
import { creditDeposit, releaseDeposit } from './handlers/credit-deposit';
import { renameAccount } from './handlers/rename-account';
import { setLowBalanceAlert } from './handlers/set-low-balance-alert';
import { balanceLowEvent } from './balance-low';
import { orderEventsOf } from './order-events';
import { allocateOrder, closeOrder, createOrder, deliverOrder, refundOrder, settleOrder } from './orders/handlers';
import { allocateOrders, settleOrders } from './orders/group-handlers';
import type { ApplyContext, Handler, Outcome, StateView } from './outcome';
import { claimDevCode, configurePromo, enterDevCode, grantPromo, redeemPromo } from './promo/handlers';
import { issueApiKey, revokeApiKey } from './handlers/api-keys';
import { createWebhookEndpoint, deleteWebhookEndpoint, updateWebhookEndpoint } from './handlers/webhook-endpoints';
import { cancelBatch, completeBatch, createBatch, stepBatchItem, stepBatchItems } from './batches/handlers';
import { removeMember, setMember } from './handlers/members';
import { deleteAddressBookEntry, saveAddressBookEntry } from './handlers/address-book';
import { createSubscription, endSubscription, refillSubscription, resumeSubscription, updateSubscription } from './subscriptions/handlers';
import { chargePlan, pausePlan } from './subscriptions/plan-handlers';
import { deskPayment, deskReturn } from './desk/handlers';
import { deskFollowUps } from './desk/follow-ups';

type HandlerTable = { [T in Exclude<CommandType, 'command.refused'>]: Handler<Extract<Command, { type: T }>> };

const handlers: HandlerTable = {
  'account.create': createAccount,
  'balance.adjust': adjustBalance,
  'account.rename': renameAccount,
  'account.set_low_balance_alert': setLowBalanceAlert,
  'deposit_address.assign': assignDepositAddress,
  'deposit.credit': creditDeposit,
  'deposit.release': releaseDeposit,
  'order.create': createOrder,
  'order.allocate': allocateOrder,
  'order.settle': settleOrder,
  'order.allocations': allocateOrders,
  'order.settlements': settleOrders,
  'order.close': closeOrder,
  'order.refund': refundOrder,
  'promo.configure': configurePromo,
  'promo.redeem': redeemPromo,
  'promo.grant': grantPromo,
  'promo.dev_code': claimDevCode,
  'promo.dev_code_enter': enterDevCode,
  'api_key.issue': issueApiKey,
  'api_key.revoke': revokeApiKey,
  'webhook.create': createWebhookEndpoint,
  'webhook.update': updateWebhookEndpoint,
  'webhook.delete': deleteWebhookEndpoint,
  'batch.create': createBatch,
  'batch.cancel': cancelBatch,
  'batch.item': stepBatchItem,
  'batch.complete': completeBatch,
  'batch.items': stepBatchItems,
  'member.set': setMember,
  'member.remove': removeMember,
  'address_book.save': saveAddressBookEntry,
  'address_book.delete': deleteAddressBookEntry,
  'subscription.create': createSubscription,
  'subscription.update': updateSubscription,
  'subscription.end': endSubscription,
  'subscription.refill': refillSubscription,
  'subscription.resume': resumeSubscription,
  'subscription.charge': chargePlan,
  'subscription.pause': pausePlan,
  'order.deliver': deliverOrder,
  'desk.payment': deskPayment,
  'desk.return': deskReturn,
};

export function applyCommand(state: StateView, command: Exclude<Command, { type: 'command.refused' }>, ctx: ApplyContext): Outcome {
  const handler = handlers[command.type] as Handler<typeof command>;
  const outcome = handler(state, command, ctx);
  if (outcome.kind !== 'applied') return outcome;
  // Any command that lowers an available balance may cross a threshold: checked here once, for all of them.
  const alerts = outcome.effects.accounts.flatMap((after) => balanceLowEvent(command, state.account(after.id), after) ?? []);
  // Every order transition goes to order-events: derived once here from the order before and after.
  const orderEvents = orderEventsOf(command, (id) => state.orders?.byId(id), outcome.effects.orders ?? []);
  // A desk order that failed to deliver owes its payment back (domain/desk/follow-ups.ts).
  const owed = deskFollowUps(command, (id) => state.orders?.byId(id), outcome.effects.orders ?? []);
  if (alerts.length === 0 && orderEvents.length === 0 && owed.length === 0) return outcome;
  const followUps = owed.length === 0 ? outcome.effects.followUps : [...outcome.effects.followUps, ...owed];
  return { ...outcome, effects: { ...outcome.effects, events: [...outcome.effects.events, ...alerts], orderEvents, followUps } };
}
