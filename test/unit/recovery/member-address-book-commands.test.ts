/** Members and the address book as commands (issue 15, item 1): the pure handlers and the Avro round trip. */
import avro from 'avsc';
import { emptyIdentity, emptyTotals, type Account } from '../../../services/domain/account';
import type { AddressBookEntry } from '../../../services/domain/address-book';
import { applyCommand } from '../../../services/domain/apply';
import type { Command } from '../../../services/domain/commands';
import type { Member } from '../../../services/domain/members';
import type { StateView } from '../../../services/domain/outcome';
import { bigintLongHook } from '../../../services/platform/wire/avro-long';
import { commandFromWire, commandToWire } from '../../../services/platform/wire/commands';
import { readSchema } from '../../../services/platform/wire/registry';

const ctx = { network: 'nile' as const, brand: 'energy' };
const OWNER = 'TOwnerAddressOwnerAddressOwnerAddre';
const account: Account = {
  id: 'acc_1', brand: 'energy', network: 'nile', ownerAddress: OWNER, displayName: null, status: 'active', balanceSun: 0n, balanceUsdt: 0n, reservedSun: 0n,
  totals: emptyTotals(), ...emptyIdentity(), createdAt: 0, updatedAt: 0,
};
const view = (members: Member[] = [], entries: AddressBookEntry[] = []): StateView => ({
  account: (id) => (id === account.id ? account : undefined),
  members: { memberOf: (a, address) => members.find((m) => m.accountId === a && m.address === address) },
  addressBook: { entriesOf: (a) => entries.filter((e) => e.accountId === a) },
});
const meta = { commandId: 'cmd_1', accountId: 'acc_1', issuedAt: 5_000, deadlineAt: null, replyTo: null };
const member = (address: string, role: 'editor' | 'viewer'): Member => ({ accountId: 'acc_1', address, role, addedAt: 1 });
const entry = (id: string, address: string): AddressBookEntry => ({ id, accountId: 'acc_1', address, label: `l_${id}`, createdAt: 1, updatedAt: 1 });
const save = (address: string, limit = 100): Command => ({ ...meta, type: 'address_book.save', entryId: 'adr_new', address, label: 'New', limit });

describe('members as commands', () => {
  it('adds a member at the command time (201), changes a role keeping the time added (200), refuses the owner', () => {
    const added = applyCommand(view(), { ...meta, type: 'member.set', address: 'TA', role: 'viewer' } as never, ctx);
    expect(added).toMatchObject({ kind: 'applied', status: 201, effects: { members: { changed: [{ address: 'TA', role: 'viewer', addedAt: 5_000 }], removed: [] } } });
    const changed = applyCommand(view([member('TA', 'viewer')]), { ...meta, type: 'member.set', address: 'TA', role: 'editor' } as never, ctx);
    expect(changed).toMatchObject({ kind: 'applied', status: 200, effects: { members: { changed: [{ role: 'editor', addedAt: 1 }] } } });
    const owner = applyCommand(view(), { ...meta, type: 'member.set', address: OWNER, role: 'editor' } as never, ctx);
    expect(owner).toMatchObject({ kind: 'rejected', error: { slug: 'invalid_request' } });
  });
  it('removes a member; an unknown one (or another account\'s) is not found', () => {
    const out = applyCommand(view([member('TA', 'viewer')]), { ...meta, type: 'member.remove', address: 'TA' } as never, ctx);
    expect(out.kind === 'applied' && out.effects.members).toEqual({ changed: [], removed: [member('TA', 'viewer')] });
    const other = [{ ...member('TA', 'viewer'), accountId: 'acc_2' }];
    expect(applyCommand(view(other), { ...meta, type: 'member.remove', address: 'TA' } as never, ctx)).toMatchObject({ kind: 'rejected', error: { slug: 'not_found' } });
  });
});

describe('the address book as commands', () => {
  it('adds an entry while a slot is free; a saved address gets the new label in place; a full book is refused with limit and used', () => {
    const added = applyCommand(view([], [entry('adr_a', 'TA')]), save('TB') as never, ctx);
    expect(added).toMatchObject({ kind: 'applied', status: 201, body: { id: 'adr_new' }, effects: { addressBook: { changed: [{ id: 'adr_new', label: 'New', createdAt: 5_000 }] } } });
    const replaced = applyCommand(view([], [entry('adr_a', 'TA')]), save('TA', 1) as never, ctx);
    expect(replaced).toMatchObject({ kind: 'applied', status: 200, body: { id: 'adr_a' }, effects: { addressBook: { changed: [{ id: 'adr_a', label: 'New', createdAt: 1, updatedAt: 5_000 }] } } });
    const full = applyCommand(view([], [entry('adr_a', 'TA')]), save('TB', 1) as never, ctx);
    expect(full).toMatchObject({ kind: 'rejected', error: { slug: 'address_book_full', details: { limit: 1, used: 1 } } });
  });
  it('deletes the account\'s entry; another account\'s is not found', () => {
    const del: Command = { ...meta, type: 'address_book.delete', entryId: 'adr_a' };
    expect(applyCommand(view([], [entry('adr_a', 'TA')]), del as never, ctx)).toMatchObject({ kind: 'applied', effects: { addressBook: { changed: [], deleted: ['adr_a'] } } });
    expect(applyCommand(view([], [{ ...entry('adr_a', 'TA'), accountId: 'acc_2' }]), del as never, ctx)).toMatchObject({ kind: 'rejected', error: { slug: 'not_found' } });
  });
});

test('the four commands survive the Avro schema of account-commands unchanged', () => {
  const type = avro.Type.forSchema(JSON.parse(readSchema('account-command.avsc')), { typeHook: bigintLongHook as never });
  const commands: Command[] = [
    { ...meta, type: 'member.set', address: 'TA', role: 'editor' },
    { ...meta, type: 'member.remove', address: 'TA' },
    save('TB', 100),
    { ...meta, type: 'address_book.delete', entryId: 'adr_a' },
  ];
  for (const c of commands) expect(commandFromWire(type.fromBuffer(type.toBuffer(commandToWire(c))))).toEqual(c);
});
