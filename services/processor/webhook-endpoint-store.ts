/** The webhook_endpoints table to and from the domain's WebhookEndpoint, inside the processor's transaction. */
import type { Command } from '../domain/commands';
import type { Effects } from '../domain/outcome';
import type { FeatureState } from './feature-state';
import type { WebhookEndpoint, WebhookEndpointView } from '../domain/webhook-endpoints';
import { upsertRows } from '../platform/db/bulk';
import type { PoolClient } from '../platform/db/pool';
import { KeyedRows } from './keyed-rows';

const columns = ['id', 'account_id', 'url', 'role', 'events', 'is_active', 'secret_sealed', 'created_at', 'updated_at'] as const;

function fromRow(r: Record<string, any>): WebhookEndpoint {
  return {
    id: r.id, accountId: r.account_id, url: r.url, role: r.role, events: r.events, isActive: r.is_active, secretSealed: r.secret_sealed,
    createdAt: (r.created_at as Date).getTime(), updatedAt: (r.updated_at as Date).getTime(),
  };
}

/** The endpoints of every account a batch's webhook commands touch, updated in memory as commands apply. */
export class WebhookEndpointState implements WebhookEndpointView, FeatureState {
  private readonly endpoints = new KeyedRows<WebhookEndpoint>((e) => e.id);

  static async load(client: PoolClient, commands: Command[]): Promise<WebhookEndpointState> {
    const state = new WebhookEndpointState();
    const accounts = [...new Set(commands.filter((c) => c.type.startsWith('webhook.')).map((c) => c.accountId))];
    if (accounts.length === 0) return state;
    // FOR UPDATE: the dispatcher's last_delivery_* writes touch the same rows. Locked in id order, the order the
    // dispatcher locks them in (dispatcher/store.ts): in scan order the two could each hold a row the other waits for.
    const { rows } = await client.query(
      `SELECT ${columns.join(', ')} FROM webhook_endpoints WHERE account_id = ANY($1::text[]) ORDER BY id FOR UPDATE`, [accounts],
    );
    for (const r of rows) state.endpoints.load(fromRow(r));
    return state;
  }

  ofAccount(accountId: string): WebhookEndpoint[] {
    return this.endpoints.values().filter((e) => e.accountId === accountId);
  }

  apply(effect: { changed: WebhookEndpoint[]; deleted: string[] }): void {
    for (const e of effect.changed) this.endpoints.put(e);
    for (const id of effect.deleted) {
      const endpoint = this.endpoints.get(id);
      if (endpoint) this.endpoints.remove(endpoint);
    }
  }

  absorb(effects: Effects): void {
    if (effects.webhookEndpoints) this.apply(effects.webhookEndpoints);
  }

  async write(client: PoolClient): Promise<void> {
    const deleted = this.endpoints.removed().map((e) => e.id);
    if (deleted.length > 0) await client.query('DELETE FROM webhook_endpoints WHERE id = ANY($1::text[])', [deleted]);
    const rows = this.endpoints.changed().map((e) => [
      e.id, e.accountId, e.url, e.role, e.events, e.isActive, e.secretSealed, new Date(e.createdAt), new Date(e.updatedAt),
    ]);
    // The one-per-role constraint is deferred: a role swap writes both rows, checked at commit.
    await upsertRows(client, 'webhook_endpoints', columns, rows, { key: 'id', keep: ['account_id', 'created_at'] });
  }
}
