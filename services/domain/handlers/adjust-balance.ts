import { availableSun } from '../account';
import { balanceCredited } from '../balance-credited';
import type { CommandOf } from '../commands';
import { domainError } from '../errors';
import { eventIdFor } from '../events';
import { derivedId } from '../ids';
import { ledgerAccounts, transferJournal } from '../ledger';
import { isInt64 } from '../money';
import { noEffects, rejected, type Handler } from '../outcome';

/**
 * A support adjustment, positive or negative. A debit never takes the available balance below zero.
 * Only a credit emits `balance.credited` (reason `adjustment`): a debit is not a credit.
 */
export const adjustBalance: Handler<CommandOf<'balance.adjust'>> = (state, command) => {
  const account = state.account(command.accountId);
  if (!account) return rejected(domainError('not_found', 'No such account.'));
  if (command.amountSun === 0n) return rejected(domainError('invalid_request', 'The amount must not be zero.', { field: 'amount_sun' }));
  const balanceSun = account.balanceSun + command.amountSun;
  if (!isInt64(balanceSun)) return rejected(domainError('amount_out_of_range', 'The balance would overflow.'));
  if (command.amountSun < 0n && availableSun(account) + command.amountSun < 0n) {
    return rejected(domainError('insufficient_funds', 'The debit exceeds the available balance.'));
  }

  const journal = transferJournal(
    {
      id: derivedId('journal', command.commandId),
      accountId: account.id,
      kind: 'adjustment',
      commandId: command.commandId,
      orderId: null,
      memo: command.memo,
      createdAt: command.issuedAt,
    },
    'TRX',
    ledgerAccounts.supportAdjustments,
    ledgerAccounts.customerTrx(account.id),
    command.amountSun,
  );
  const updated = { ...account, balanceSun, updatedAt: command.issuedAt };
  const effects = { ...noEffects(), accounts: [updated], journals: [journal] };
  if (command.amountSun > 0n) {
    effects.events.push(balanceCredited(eventIdFor(command.commandId, 0), account.id, command.issuedAt, {
      reason: 'adjustment', currency: 'TRX', amount_sun: command.amountSun, balance_sun: balanceSun, reference_id: journal.id, asset: 'TRX',
    }));
  }
  return {
    kind: 'applied',
    status: 201,
    body: { journal_id: journal.id, account_id: account.id, amount_sun: command.amountSun, balance_sun: balanceSun },
    effects,
  };
};
