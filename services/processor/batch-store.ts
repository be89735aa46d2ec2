/**
 * The batches table inside the processor's transaction: BatchState loads what a slice's batch commands
 * touch, serves it to the pure handlers with the slice's own changes on top, and writes the changes back.
 * The row mapping is here, with the table's only writer; services/batches/store.ts reads through it.
 */
import type { Command } from '../domain/commands';
import type { BatchView, Effects } from '../domain/outcome';
import type { PoolClient } from '../platform/db/pool';
import { parseOwnJson, stringifyJson } from '../platform/json';
import { KeyedRows } from './keyed-rows';
import { batchCommandTypes } from '../domain/batches/commands';
import { itemFromStored, storedForm, type Batch } from '../domain/batches/rules';
import type { FeatureState, SaveGroups } from './feature-state';

/** Every column, the items as text (see batchFromRow). */
export const BATCH_SELECT = `SELECT id, account_id, batch_key, client_batch_id, request_hash, items::text AS items_text, created_at, finished_at, final_status, charged_sun`;

const columns = ['id', 'account_id', 'batch_key', 'client_batch_id', 'request_hash', 'items', 'created_at', 'finished_at', 'final_status', 'charged_sun'] as const;

export function batchFromRow(r: Record<string, any>): Batch {
  // items_text: the jsonb as text, parsed once here with int64 kept exact (pg's own parse would round them).
  const items = (parseOwnJson(r.items_text) as Array<Record<string, any>>).map(itemFromStored);
  return {
    id: r.id, accountId: r.account_id, batchKey: r.batch_key, clientBatchId: r.client_batch_id, requestHash: r.request_hash, items,
    createdAt: r.created_at.getTime(), finishedAt: r.finished_at === null ? null : r.finished_at.getTime(), finalStatus: r.final_status,
    chargedSun: r.charged_sun === null ? null : BigInt(r.charged_sun),
  };
}

const batchToRow = (b: Batch): unknown[] => [
  b.id, b.accountId, b.batchKey, b.clientBatchId, b.requestHash, stringifyJson(b.items.map(storedForm)), new Date(b.createdAt),
  b.finishedAt === null ? null : new Date(b.finishedAt), b.finalStatus, b.chargedSun,
];

export class BatchState implements BatchView, FeatureState {
  private readonly batches = new KeyedRows<Batch>((b) => b.id);

  static async load(client: PoolClient, commands: Command[]): Promise<BatchState> {
    const state = new BatchState();
    const work = commands.filter((c) => batchCommandTypes.has(c.type));
    if (work.length === 0) return state;
    const ids = work.flatMap((c) => ('batchId' in c && typeof c.batchId === 'string' ? [c.batchId] : []));
    const keyAccounts: string[] = [];
    const keys: string[] = [];
    for (const c of work) if (c.type === 'batch.create') (keyAccounts.push(c.accountId), keys.push(c.batchKey));
    const { rows } = await client.query(
      `${BATCH_SELECT} FROM batches WHERE id = ANY($1::text[])
       UNION ${BATCH_SELECT} FROM batches WHERE (account_id, batch_key) IN (SELECT * FROM unnest($2::text[], $3::text[]))`,
      [ids, keyAccounts, keys],
    );
    for (const r of rows) state.batches.load(batchFromRow(r));
    return state;
  }

  byId(batchId: string): Batch | undefined {
    return this.batches.get(batchId);
  }

  byKey(accountId: string, batchKey: string): Batch | undefined {
    for (const b of this.batches.values()) if (b.accountId === accountId && b.batchKey === batchKey) return b;
    return undefined;
  }

  absorb(effects: Effects): void {
    for (const batch of effects.batches ?? []) this.batches.put(batch);
  }

  /**
   * Into the processor's last write group (the results and the outbox, one statement with the consumer's
   * checkpoint): nothing in the apply reads the rows back, and the row is never a foreign key's target.
   * Its own statement before: one round trip more per batch command.
   */
  stage({ last }: SaveGroups): void {
    last.upsertRows('batches', columns, this.batches.changed().map(batchToRow), { key: 'id', keep: ['created_at'] });
  }
}

