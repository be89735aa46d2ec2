/** The api_keys table to and from the domain's ApiKey, inside the processor's transaction. */
import type { ApiKey, ApiKeyView } from '../domain/api-keys';
import type { Command } from '../domain/commands';
import type { Effects } from '../domain/outcome';
import type { FeatureState } from './feature-state';
import { upsertRows } from '../platform/db/bulk';
import type { PoolClient } from '../platform/db/pool';
import { KeyedRows } from './keyed-rows';

const columns = ['id', 'account_id', 'name', 'scopes', 'secret_enc', 'created_at', 'revoked_at'] as const;

function fromRow(r: Record<string, any>): ApiKey {
  return {
    id: r.id, accountId: r.account_id, name: r.name, scopes: r.scopes, secretEnc: r.secret_enc,
    createdAt: (r.created_at as Date).getTime(), revokedAt: r.revoked_at === null ? null : (r.revoked_at as Date).getTime(),
  };
}

/** The keys of every account a batch's api_key commands touch, updated in memory as commands apply. */
export class ApiKeyState implements ApiKeyView, FeatureState {
  private readonly keys = new KeyedRows<ApiKey>((k) => k.id);

  static async load(client: PoolClient, commands: Command[]): Promise<ApiKeyState> {
    const state = new ApiKeyState();
    const accounts = [...new Set(commands.filter((c) => c.type.startsWith('api_key.')).map((c) => c.accountId))];
    if (accounts.length === 0) return state;
    // FOR UPDATE: the API's `last_used_at` writes touch the same rows; the processor's view wins for the rest.
    const { rows } = await client.query(`SELECT ${columns.join(', ')} FROM api_keys WHERE account_id = ANY($1::text[]) FOR UPDATE`, [accounts]);
    for (const r of rows) state.keys.load(fromRow(r));
    return state;
  }

  byId(id: string): ApiKey | undefined {
    return this.keys.get(id);
  }

  activeOf(accountId: string): ApiKey[] {
    return this.keys.values().filter((k) => k.accountId === accountId && k.revokedAt === null);
  }

  put(key: ApiKey): void {
    this.keys.put(key);
  }

  absorb(effects: Effects): void {
    for (const key of effects.apiKeys ?? []) this.put(key);
  }

  async write(client: PoolClient): Promise<void> {
    const rows = this.keys.changed().map((k) => [
      k.id, k.accountId, k.name, k.scopes, k.secretEnc, new Date(k.createdAt), k.revokedAt === null ? null : new Date(k.revokedAt),
    ]);
    // Only revocation changes a stored key.
    await upsertRows(client, 'api_keys', columns, rows, { key: 'id', keep: ['account_id', 'name', 'scopes', 'secret_enc', 'created_at'] });
  }
}
