import { emptyTotals, type Account } from '../account';
import type { CommandOf } from '../commands';
import { domainError } from '../errors';
import { noEffects, rejected, type Handler } from '../outcome';

/**
 * Creates an unfunded account with its owner address and deposit address. The id derives from
 * (brand, network, owner address), so a second create for the same address lands here and answers the
 * existing account with 200 (idempotent by address): nothing is created, the carried deposit index is
 * simply left unused.
 */
export const createAccount: Handler<CommandOf<'account.create'>> = (state, command, ctx) => {
  if (command.network !== ctx.network || command.brand !== ctx.brand) {
    return rejected(domainError('invalid_request', 'The account belongs to another network or brand.'));
  }
  const existing = state.account(command.accountId);
  if (existing) return { kind: 'applied', status: 200, body: { account_id: existing.id }, effects: noEffects() };
  const hasDeposit = command.depositAddress != null && command.depositIndex != null;
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
    email: command.email ?? null,
    depositAddress: hasDeposit ? command.depositAddress! : null,
    depositIndex: hasDeposit ? command.depositIndex! : null,
    depositIssuedAt: hasDeposit ? command.issuedAt : null,
    retiredDepositAddresses: [],
    createdAt: command.issuedAt,
    updatedAt: command.issuedAt,
  };
  return { kind: 'applied', status: 201, body: { account_id: account.id }, effects: { ...noEffects(), accounts: [account] } };
};
