/**
 * The tables a replay of account-commands rebuilds, with the columns that legitimately differ between a
 * live run and a replay (wall-clock stamps, serial ids, trace ids). Every other column must match.
 */
export interface ReplayedTable {
  table: string;
  key: string[];
  volatile: string[];
  where?: string;
}

export const replayedTables: ReplayedTable[] = [
  { table: 'accounts', key: ['id'], volatile: [] },
  { table: 'journals', key: ['id'], volatile: [] },
  { table: 'journal_lines', key: ['journal_id', 'line_no'], volatile: [] },
  { table: 'deposits', key: ['deposit_id'], volatile: [] },
  { table: 'orders', key: ['id'], volatile: [] },
  { table: 'order_idempotency', key: ['account_id', 'key'], volatile: [] },
  { table: 'command_results', key: ['command_id'], volatile: ['processed_at'] },
  { table: 'outbox', key: ['message_id'], volatile: ['id', 'published_at', 'trace_context'] },
  { table: 'consumer_offsets', key: ['consumer_group', 'topic', 'partition'], volatile: ['updated_at'], where: "consumer_group = 'ledger-processor'" },
  { table: 'undecodable_records', key: ['topic', 'partition', 'offset'], volatile: ['seen_at'] },
  { table: 'promo_config', key: ['id'], volatile: [] },
  { table: 'promo_redemptions', key: ['address'], volatile: [] },
  { table: 'promo_dev_codes', key: ['address'], volatile: [] },
  { table: 'batches', key: ['id'], volatile: [] },
];

/** Tables that are not state derived from the log. */
export const notReplayedTables = [
  'pgmigrations',
  // Deposit watcher: where it stands on the chain (services/deposits/watcher.ts).
  'deposit_watcher_position',
  // Quotes: written by the API (POST /v1/quotes); the order that uses one carries its total.
  'quotes',
  // Chain roles: the signed set of each order, stored before its command is appended (services/broadcaster/work.ts).
  'order_signatures',
  // Identity: written by the API directly (services/identity), not derived from the log.
  // Webhooks: endpoints written by the API, deliveries by the dispatcher (services/dispatcher).
  'webhook_endpoints', 'webhook_deliveries',
  'auth_challenges', 'bootstrap_tokens', 'sessions', 'sign_ins', 'account_members', 'api_keys', 'address_book', 'audit_log',
];
