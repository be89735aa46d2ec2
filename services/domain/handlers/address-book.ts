import type { AddressBookEntry } from '../address-book';
import type { CommandOf } from '../commands';
import { domainError } from '../errors';
import { noEffects, rejected, type Handler, type Outcome, type StateView } from '../outcome';

function entriesOf(state: StateView, accountId: string): AddressBookEntry[] {
  if (!state.addressBook) throw new Error('address book state not loaded');
  return state.addressBook.entriesOf(accountId);
}

function applied(status: 200 | 201, id: string, change: { changed: AddressBookEntry[]; deleted: string[] }): Outcome {
  return { kind: 'applied', status, body: { id }, effects: { ...noEffects(), addressBook: change } };
}

/** Replaces the label of a saved address (200, no slot used), or adds it (201) while fewer than `limit` are saved. */
export const saveAddressBookEntry: Handler<CommandOf<'address_book.save'>> = (state, command) => {
  if (!state.account(command.accountId)) return rejected(domainError('not_found', 'No such account.'));
  const entries = entriesOf(state, command.accountId);
  const existing = entries.find((e) => e.address === command.address);
  if (existing) return applied(200, existing.id, { changed: [{ ...existing, label: command.label, updatedAt: command.issuedAt }], deleted: [] });
  if (entries.length >= command.limit) return rejected(domainError('address_book_full', undefined, { limit: command.limit, used: entries.length }));
  const entry: AddressBookEntry = {
    id: command.entryId, accountId: command.accountId, address: command.address, label: command.label, createdAt: command.issuedAt, updatedAt: command.issuedAt,
  };
  return applied(201, entry.id, { changed: [entry], deleted: [] });
};

/** Deletes one of the account's entries; another account's entry is not found. */
export const deleteAddressBookEntry: Handler<CommandOf<'address_book.delete'>> = (state, command) => {
  if (!entriesOf(state, command.accountId).some((e) => e.id === command.entryId)) return rejected(domainError('not_found'));
  return applied(200, command.entryId, { changed: [], deleted: [command.entryId] });
};
