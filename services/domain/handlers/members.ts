import type { CommandOf } from '../commands';
import { domainError } from '../errors';
import type { Member, MemberView } from '../members';
import { noEffects, rejected, type Handler, type Outcome, type StateView } from '../outcome';

function membersOf(state: StateView): MemberView {
  if (!state.members) throw new Error('member state not loaded');
  return state.members;
}

function applied(status: 200 | 201, member: Member, change: { changed: Member[]; removed: Member[] }): Outcome {
  const body = { address: member.address, role: member.role, added_at_ms: member.addedAt };
  return { kind: 'applied', status, body, effects: { ...noEffects(), members: change } };
}

/** Adds a member (201) or changes a member's role (200, the time added kept); the owner is never a member row. */
export const setMember: Handler<CommandOf<'member.set'>> = (state, command) => {
  const account = state.account(command.accountId);
  if (!account) return rejected(domainError('not_found', 'No such account.'));
  if (command.address === account.ownerAddress) return rejected(domainError('invalid_request', 'The owner is already a member.', { field: 'address' }));
  const current = membersOf(state).memberOf(command.accountId, command.address);
  if (current) {
    const updated = { ...current, role: command.role };
    return applied(200, updated, { changed: current.role === command.role ? [] : [updated], removed: [] });
  }
  const added: Member = { accountId: command.accountId, address: command.address, role: command.role, addedAt: command.issuedAt };
  return applied(201, added, { changed: [added], removed: [] });
};

export const removeMember: Handler<CommandOf<'member.remove'>> = (state, command) => {
  const current = membersOf(state).memberOf(command.accountId, command.address);
  if (!current) return rejected(domainError('not_found'));
  return applied(200, current, { changed: [], removed: [current] });
};
