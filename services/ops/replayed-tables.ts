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
  // trace_context: the creating request's trace, as the outbox's.
  { table: 'orders', key: ['id'], volatile: ['trace_context'] },
  // The stake the orders hold, kept by the processor beside them (services/processor/order-store.ts).
  { table: 'order_stake', key: ['receiver', 'pool_address', 'resource'], volatile: [] },
  { table: 'order_idempotency', key: ['account_id', 'key'], volatile: [] },
  // A caller's claim of a command it gave up on (refusal 'abandoned') is written by the API, not the log: when
  // the append never reached the broker (Kafka away) no replay can know it. Claims whose command did land
  // are on the log as refusal markers, compared in outbox.
  { table: 'command_results', key: ['command_id'], volatile: ['processed_at'], where: "refusal_reason IS DISTINCT FROM 'abandoned'" },
  // source_partition: the relay's bookkeeping (null on rows older than its cursors).
  { table: 'outbox', key: ['message_id'], volatile: ['id', 'published_at', 'trace_context', 'source_partition'] },
  { table: 'consumer_offsets', key: ['consumer_group', 'topic', 'partition'], volatile: ['updated_at'], where: "consumer_group = 'ledger-processor'" },
  { table: 'undecodable_records', key: ['topic', 'partition', 'offset'], volatile: ['seen_at'] },
  { table: 'promo_config', key: ['id'], volatile: [] },
  { table: 'promo_redemptions', key: ['address'], volatile: [] },
  { table: 'promo_dev_codes', key: ['address'], volatile: [] },
  // API keys are issued and revoked by commands. last_used_at is the API's bookkeeping; secret_enc is
  // re-sealed in place by `ops rotate-encryption-key` (and by `ops restore`), the log keeps the first seal.
  { table: 'api_keys', key: ['id'], volatile: ['last_used_at', 'secret_enc'] },
  { table: 'batches', key: ['id'], volatile: [] },
  // Webhook endpoints: webhook.* commands. last_delivery_* is the dispatcher's bookkeeping; secret_sealed is
  // re-sealed in place by `ops rotate-encryption-key` (and by `ops restore`), the log keeps the first seal.
  { table: 'webhook_endpoints', key: ['id'], volatile: ['last_delivery_at', 'last_delivery_status', 'secret_sealed'] },
  // Members and roles (member.* commands) and the address book (address_book.* commands).
  { table: 'account_members', key: ['account_id', 'address'], volatile: [] },
  { table: 'address_book', key: ['id'], volatile: [] },
  { table: 'subscriptions', key: ['id'], volatile: [] },
  // Transfer-desk payments and their returns (desk.* commands; services/processor/desk-store.ts).
  { table: 'desk_payments', key: ['payment_id'], volatile: [] },
];

/** Tables that are not state derived from the log. */
export const notReplayedTables = [
  'pgmigrations',
  // The relay's cursor per partition: how far the outbox is on the log (services/relay/relay.ts).
  'outbox_cursors',
  // Deposit watcher: where it stands on the chain (services/deposits/watcher.ts).
  'deposit_watcher_position',
  // Quotes: written by the API (POST /v1/quotes); the order that uses one carries its total.
  'quotes',
  // Chain roles: the signed set of each order, stored before its command is appended (services/delivery/signed-sets.ts).
  'order_signatures',
  // What a customer would not miss after a restore (docs/recovery.md, "Off the log by design"): delivery
  // attempt history (the dispatcher's), short-lived sign-in material, sessions (sign in again), the audit log.
  'webhook_deliveries',
  'auth_challenges', 'bootstrap_tokens', 'sessions', 'sign_ins', 'audit_log',
  // Stats projection: built from order-events, not account-commands; `ops rebuild-stats` rebuilds it (services/stats).
  'stats_orders', 'stats_receiver_daily', 'stats_undecodable', 'stats_days', 'stats_grid_monthly', 'stats_receiver_monthly', 'stats_account_versions',
  // Chain roles: transaction ids of the stored signed sets (one order each) and activation claims per receiver.
  'order_tx_ids', 'receiver_activations',
  // Which log and network the database was built from: stamped at first start or by `ops restore` (services/platform/log-identity.ts).
  'log_identity',
  // A restored database's catch-up to the log end, done by its first processor (services/ops/restore.ts).
  'restore_catch_up',
  // Subscription watcher: where it stands on the chain (services/subscriptions).
  'subscription_watcher_position',
  // Single-use request signatures recorded while Redis is away (services/api/auth/api-key-auth.ts).
  'used_signatures',
  // When each process's roles last made progress, for /readyz (services/platform: role heartbeats): live state, not history.
  'role_heartbeats',
];
