/** The account_members table to and from the domain's Member, inside the processor's transaction. */
import type { Command } from '../domain/commands';
import type { Effects } from '../domain/outcome';
import type { FeatureState } from './feature-state';
import type { Member, MemberView } from '../domain/members';
import { upsertRows } from '../platform/db/bulk';
import type { PoolClient } from '../platform/db/pool';
import { KeyedRows } from './keyed-rows';

const columns = ['account_id', 'address', 'role', 'added_at'] as const;
const keyOf = (accountId: string, address: string) => `${accountId}\u0000${address}`;

/** The members of every account a batch's member commands touch, updated in memory as commands apply. */
export class MemberState implements MemberView, FeatureState {
  private readonly members = new KeyedRows<Member>((m) => keyOf(m.accountId, m.address));

  static async load(client: PoolClient, commands: Command[]): Promise<MemberState> {
    const state = new MemberState();
    const accounts = [...new Set(commands.filter((c) => c.type.startsWith('member.')).map((c) => c.accountId))];
    if (accounts.length === 0) return state;
    const { rows } = await client.query(`SELECT ${columns.join(', ')} FROM account_members WHERE account_id = ANY($1::text[])`, [accounts]);
    for (const r of rows) state.members.load({ accountId: r.account_id, address: r.address, role: r.role, addedAt: (r.added_at as Date).getTime() });
    return state;
  }

  memberOf(accountId: string, address: string): Member | undefined {
    return this.members.get(keyOf(accountId, address));
  }

  apply(effect: { changed: Member[]; removed: Member[] }): void {
    for (const m of effect.changed) this.members.put(m);
    for (const m of effect.removed) this.members.remove(m);
  }

  absorb(effects: Effects): void {
    if (effects.members) this.apply(effects.members);
  }

  async write(client: PoolClient): Promise<void> {
    for (const m of this.members.removed()) {
      await client.query('DELETE FROM account_members WHERE account_id = $1 AND address = $2', [m.accountId, m.address]);
    }
    const rows = this.members.changed().map((m) => [m.accountId, m.address, m.role, new Date(m.addedAt)]);
    await upsertRows(client, 'account_members', columns, rows, { key: ['account_id', 'address'] });
  }
}
