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
import { allocateOrder, closeOrder, createOrder, refundOrder, settleOrder } from './handlers/orders';
import type { ApplyContext, Handler, Outcome, StateView } from './outcome';

type HandlerTable = { [T in Exclude<CommandType, 'command.refused'>]: Handler<Extract<Command, { type: T }>> };

const handlers: HandlerTable = {
  'account.create': createAccount,
  'balance.adjust': adjustBalance,
  'account.rename': renameAccount,
  'deposit_address.assign': assignDepositAddress,
  'deposit.credit': creditDeposit,
  'deposit.release': releaseDeposit,
  'order.create': createOrder,
  'order.allocate': allocateOrder,
  'order.settle': settleOrder,
  'order.close': closeOrder,
  'order.refund': refundOrder,
};

export function applyCommand(state: StateView, command: Exclude<Command, { type: 'command.refused' }>, ctx: ApplyContext): Outcome {
  const handler = handlers[command.type] as Handler<typeof command>;
  return handler(state, command, ctx);
}
