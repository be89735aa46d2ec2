import { emptyTotals, type Account } from '../account';
import type { CommandOf } from '../commands';
import { domainError } from '../errors';
import { noEffects, rejected, type Handler } from '../outcome';

/** Creates a bare account. Creating an id that exists answers the existing account (idempotent). */
export const createAccount: Handler<CommandOf<'account.create'>> = (state, command, ctx) => {
  if (command.network !== ctx.network || command.brand !== ctx.brand) {
    return rejected(domainError('invalid_request', 'The account belongs to another network or brand.'));
  }
  const existing = state.account(command.accountId);
  if (existing) return { kind: 'applied', status: 200, body: { account_id: existing.id }, effects: noEffects() };
  const account: Account = {
    id: command.accountId,
    brand: command.brand,
    network: command.network,
    ownerAddress: command.ownerAddress,
    displayName: command.displayName,
    status: 'unfunded',
    balanceSun: 0n,
    balanceUsdt: 0n,
    reservedSun: 0n,
    totals: emptyTotals(),
    createdAt: command.issuedAt,
    updatedAt: command.issuedAt,
  };
  return { kind: 'applied', status: 201, body: { account_id: account.id }, effects: { ...noEffects(), accounts: [account] } };
};
