import type { CommandOf } from '../commands';
import { domainError } from '../errors';
import { noEffects, rejected, type Handler } from '../outcome';

/** Sets or clears the balance.low threshold. Setting it never fires the alert: only a crossing does. */
export const setLowBalanceAlert: Handler<CommandOf<'account.set_low_balance_alert'>> = (state, command) => {
  const account = state.account(command.accountId);
  if (!account) return rejected(domainError('not_found', 'No such account.'));
  if (command.thresholdSun !== null && command.thresholdSun < 0n) {
    return rejected(domainError('invalid_request', 'The threshold must not be negative.', { field: 'threshold_sun' }));
  }
  const updated = { ...account, lowBalanceThresholdSun: command.thresholdSun, updatedAt: command.issuedAt };
  return {
    kind: 'applied',
    status: 200,
    body: { account_id: account.id, low_balance_threshold_sun: command.thresholdSun },
    effects: { ...noEffects(), accounts: [updated] },
  };
};
