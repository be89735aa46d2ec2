import type { CommandOf } from '../commands';
import { domainError } from '../errors';
import { noEffects, rejected, type Handler } from '../outcome';

/** The owner's display name (validated by the API); `label` mirrors it on reads. */
export const renameAccount: Handler<CommandOf<'account.rename'>> = (state, command) => {
  const account = state.account(command.accountId);
  if (!account) return rejected(domainError('not_found', 'No such account.'));
  if (account.displayName === command.displayName) {
    return { kind: 'applied', status: 200, body: { account_id: account.id }, effects: noEffects() };
  }
  const updated = { ...account, displayName: command.displayName, updatedAt: command.issuedAt };
  return { kind: 'applied', status: 200, body: { account_id: account.id }, effects: { ...noEffects(), accounts: [updated] } };
};
