/** The address_book table to and from the domain's AddressBookEntry, inside the processor's transaction. */
import type { AddressBookEntry, AddressBookView } from '../domain/address-book';
import type { Command } from '../domain/commands';
import type { Effects } from '../domain/outcome';
import type { FeatureState } from './feature-state';
import { upsertRows } from '../platform/db/bulk';
import type { PoolClient } from '../platform/db/pool';
import { KeyedRows } from './keyed-rows';

const columns = ['id', 'account_id', 'address', 'label', 'created_at', 'updated_at'] as const;

/** The entries of every account a batch's address_book commands touch, updated in memory as commands apply. */
export class AddressBookState implements AddressBookView, FeatureState {
  private readonly entries = new KeyedRows<AddressBookEntry>((e) => e.id);

  static async load(client: PoolClient, commands: Command[]): Promise<AddressBookState> {
    const state = new AddressBookState();
    const accounts = [...new Set(commands.filter((c) => c.type.startsWith('address_book.')).map((c) => c.accountId))];
    if (accounts.length === 0) return state;
    const { rows } = await client.query(`SELECT ${columns.join(', ')} FROM address_book WHERE account_id = ANY($1::text[])`, [accounts]);
    for (const r of rows) {
      state.entries.load({
        id: r.id, accountId: r.account_id, address: r.address, label: r.label, createdAt: (r.created_at as Date).getTime(), updatedAt: (r.updated_at as Date).getTime(),
      });
    }
    return state;
  }

  entriesOf(accountId: string): AddressBookEntry[] {
    return this.entries.values().filter((e) => e.accountId === accountId);
  }

  apply(effect: { changed: AddressBookEntry[]; deleted: string[] }): void {
    for (const e of effect.changed) this.entries.put(e);
    for (const id of effect.deleted) {
      const entry = this.entries.get(id);
      if (entry) this.entries.remove(entry);
    }
  }

  absorb(effects: Effects): void {
    if (effects.addressBook) this.apply(effects.addressBook);
  }

  async write(client: PoolClient): Promise<void> {
    const deleted = this.entries.removed().map((e) => e.id);
    // Deletes first: an address deleted and saved again in one batch is a new row under the unique (account, address).
    if (deleted.length > 0) await client.query('DELETE FROM address_book WHERE id = ANY($1::text[])', [deleted]);
    const rows = this.entries.changed().map((e) => [e.id, e.accountId, e.address, e.label, new Date(e.createdAt), new Date(e.updatedAt)]);
    await upsertRows(client, 'address_book', columns, rows, { key: 'id', keep: ['account_id', 'address', 'created_at'] });
  }
}
