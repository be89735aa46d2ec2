import type { CommandOf } from '../commands';
import { retiredCreditUntil, rotationBlockedUntil } from '../deposit-rotation';
import { domainError } from '../errors';
import { eventIdFor } from '../events';
import { noEffects, rejected, type Handler } from '../outcome';

/**
 * Issues the first deposit address of an account that has none, or (support) replaces the current one
 * within the rotation limits; the retired address keeps crediting for `retired_credit_days`.
 */
export const assignDepositAddress: Handler<CommandOf<'deposit_address.assign'>> = (state, command) => {
  const account = state.account(command.accountId);
  if (!account) return rejected(domainError('not_found', 'No such account.'));
  if (account.depositAddress === command.address || (command.reason === 'issue' && account.depositAddress !== null)) {
    return { kind: 'applied', status: 200, body: { account_id: account.id, address: account.depositAddress }, effects: noEffects() };
  }
  const known = [account.depositAddress, ...account.retiredDepositAddresses.map((r) => r.address)];
  if (known.includes(command.address)) {
    return rejected(domainError('invalid_request', 'This address was used by the account before.', { field: 'address' }));
  }
  const now = command.issuedAt;
  const blockedUntil = rotationBlockedUntil(account, now);
  if (blockedUntil !== null) {
    return rejected(domainError('rate_limited', 'The rotation limits do not allow another rotation yet.', { next_allowed_at: new Date(blockedUntil).toISOString() }));
  }
  const retired = account.depositAddress !== null && account.depositIndex !== null
    ? { address: account.depositAddress, derivationIndex: account.depositIndex, retiredAt: now, creditedUntil: retiredCreditUntil(now) }
    : null;
  const updated = {
    ...account,
    depositAddress: command.address,
    depositIndex: command.derivationIndex,
    depositIssuedAt: now,
    retiredDepositAddresses: retired ? [retired, ...account.retiredDepositAddresses] : account.retiredDepositAddresses,
    updatedAt: now,
  };
  const effects = { ...noEffects(), accounts: [updated] };
  effects.events.push({
    eventId: eventIdFor(command.commandId, 0),
    type: 'deposit_address.rotated',
    accountId: account.id,
    createdAt: now,
    data: {
      address: command.address,
      retired_address: retired?.address ?? null,
      retired_credit_until: retired ? new Date(retired.creditedUntil).toISOString() : null,
      rotated_at: new Date(now).toISOString(),
    },
  });
  return { kind: 'applied', status: retired ? 200 : 201, body: { account_id: account.id, address: command.address, retired_address: retired?.address ?? null }, effects };
};
