/**
 * The processor's SQL: everything it reads and writes inside the one transaction that also moves the
 * partition's stored offset. Plain functions over a client, so the replay uses exactly the same ones.
 */
import type { Account } from '../domain/account';
import type { Command } from '../domain/commands';
import type { CommandResult } from '../domain/command-result';
export { readResults } from '../platform/db/command-results';
import type { DomainEvent } from '../domain/events';
import type { OrderEvent } from '../domain/order-events';
import type { Journal } from '../domain/ledger';
import { netFor, ledgerAccounts } from '../domain/ledger';
import type { WriteGroup } from '../platform/db/bulk';
import type { PoolClient } from '../platform/db/pool';
import { stringifyBigintJson } from '../platform/json';
import { accountColumns, accountColumnTypes, accountFromRow, accountToRow } from './account-rows';

/** Inserts a pending result row per command; returns the ids this transaction now owns (first sight). */
export async function claimCommands(client: PoolClient, commands: Command[]): Promise<Set<string>> {
  if (commands.length === 0) return new Set();
  const { rows } = await client.query(
    `INSERT INTO command_results (command_id, account_id, command_type, outcome)
     SELECT t.*, 'pending' FROM unnest($1::text[], $2::text[], $3::text[]) AS t
     ON CONFLICT (command_id) DO NOTHING RETURNING command_id`,
    [commands.map((c) => c.commandId), commands.map((c) => c.accountId), commands.map((c) => c.type)],
  );
  return new Set(rows.map((r) => r.command_id as string));
}

/**
 * Claims follow-ups applied in the batch of their parent (apply-batch.ts appliesInline), in `writes`. No
 * ON CONFLICT: a follow-up id derives from its parent's work, so one already applied while its parent is
 * new would be a double effect; the statement fails and the transaction with it instead.
 */
export function claimFollowUps(writes: WriteGroup, commands: Command[]): void {
  writes.insertRows('command_results', ['command_id', 'account_id', 'command_type', 'outcome'], commands.map((c) => [c.commandId, c.accountId, c.type, 'pending']));
}

/** Adds to `writes` the final result of each command claimed by claimCommands. */
export function finishResults(writes: WriteGroup, results: CommandResult[]): void {
  if (results.length === 0) return;
  writes.add({
    sql: `UPDATE command_results AS r SET outcome = t.outcome, http_status = t.http_status, body = t.body,
            error = t.error, refusal_reason = t.refusal_reason, processed_at = now()
     FROM unnest($1::text[], $2::text[], $3::smallint[], $4::jsonb[], $5::jsonb[], $6::text[])
          AS t(command_id, outcome, http_status, body, error, refusal_reason)
     WHERE r.command_id = t.command_id`,
    params: [
      results.map((r) => r.commandId),
      results.map((r) => r.outcome),
      results.map((r) => r.status),
      results.map((r) => (r.body === null ? null : stringifyBigintJson(r.body))),
      results.map((r) => (r.error === null ? null : stringifyBigintJson(r.error))),
      results.map((r) => r.refusalReason),
    ],
  });
}

export async function loadAccounts(client: PoolClient, ids: string[]): Promise<Map<string, Account>> {
  if (ids.length === 0) return new Map();
  const { rows } = await client.query(`SELECT ${accountColumns.join(', ')} FROM accounts WHERE id = ANY($1::text[])`, [ids]);
  return new Map(rows.map((r) => [r.id as string, accountFromRow(r)]));
}

export function saveAccounts(writes: WriteGroup, accounts: Account[]): void {
  writes.upsertArrays('accounts', accountColumnTypes, accounts.map(accountToRow), { key: 'id', keep: ['created_at'] });
}

/** Journals and their lines (in the same group: the lines' foreign key is checked at the end of the statement). */
export function saveJournals(writes: WriteGroup, journals: Journal[]): void {
  writes.insertArrays(
    'journals',
    [['id', 'text'], ['account_id', 'text'], ['kind', 'text'], ['command_id', 'text'], ['order_id', 'text'], ['memo', 'text'],
      ['amount_sun', 'bigint'], ['amount_usdt', 'bigint'], ['created_at', 'timestamptz']],
    journals.map((j) => [
      j.id, j.accountId, j.kind, j.commandId, j.orderId, j.memo,
      netFor(j, ledgerAccounts.customerTrx(j.accountId), 'TRX'),
      netFor(j, ledgerAccounts.customerUsdt(j.accountId), 'USDT'),
      new Date(j.createdAt),
    ]),
  );
  writes.insertArrays(
    'journal_lines',
    [['journal_id', 'text'], ['line_no', 'smallint'], ['ledger_account', 'text'], ['currency', 'text'], ['amount', 'bigint']],
    journals.flatMap((j) => j.lines.map((l, i) => [j.id, i, l.ledgerAccount, l.currency, l.amount])),
  );
}

export interface OutboxMessage {
  destination: 'account-events' | 'account-commands' | 'order-events';
  messageId: string;
  accountId: string;
  payload: DomainEvent | Command | OrderEvent;
  createdAt: number;
  traceContext: Record<string, string> | null;
}

/**
 * The outbox rows, and the relay's wake-up when there are any (a command with nothing to publish wakes no one).
 * `sourcePartition`: the account-commands partition whose slice writes them; the relay's cursor is per
 * partition, which is sound only because one partition's slices commit one after another
 * (migrations/1765500000001_outbox-cursors.sql).
 */
export function saveOutbox(writes: WriteGroup, messages: OutboxMessage[], sourcePartition: number): void {
  if (messages.length > 0) writes.notify('outbox');
  writes.insertArrays(
    'outbox',
    [['destination', 'text'], ['message_id', 'text'], ['account_id', 'text'], ['payload', 'jsonb'], ['trace_context', 'jsonb'], ['created_at', 'timestamptz'], ['source_partition', 'integer']],
    messages.map((m) => [
      m.destination, m.messageId, m.accountId, stringifyBigintJson(m.payload),
      m.traceContext ? JSON.stringify(m.traceContext) : null, new Date(m.createdAt), sourcePartition,
    ]),
    // A marker for an abandoned command may be written again when its command is seen again.
    'ON CONFLICT (message_id) DO NOTHING',
  );
}
