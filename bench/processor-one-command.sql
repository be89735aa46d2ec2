-- The SQL the ledger processor runs for one command in a batch of one (services/processor/store.ts), for
-- pgbench: the ceiling the processor is compared with. Variables: :acc (account row), :n (unique per run).
\set n random(1, 1000000000000)
\set acc random(1, 3)
BEGIN;
INSERT INTO consumer_offsets (consumer_group, topic, partition, next_offset) VALUES ('bench', 't', :acc, 0) ON CONFLICT DO NOTHING;
SELECT next_offset FROM consumer_offsets WHERE consumer_group = 'bench' AND topic = 't' AND partition = :acc FOR UPDATE;
INSERT INTO command_results (command_id, account_id, command_type, outcome) SELECT t.*, 'pending' FROM unnest(ARRAY['pgb_' || :n || '_' || :client_id], ARRAY['acc_bench' || :acc], ARRAY['balance.adjust']) AS t ON CONFLICT (command_id) DO NOTHING RETURNING command_id;
SELECT id, brand, network, owner_address, display_name, status, balance_sun, balance_usdt, reserved_sun, deposited_sun, spent_sun, refunded_sun, orders_created, energy_delegated, created_at, updated_at FROM accounts WHERE id = ANY(ARRAY['acc_bench' || :acc]);
INSERT INTO accounts (id, brand, network, owner_address, display_name, status, balance_sun, balance_usdt, reserved_sun, deposited_sun, spent_sun, refunded_sun, orders_created, energy_delegated, created_at, updated_at)
  VALUES ('acc_bench' || :acc, 'energy', 'nile', NULL, NULL, 'unfunded', 1000, 0, 0, 0, 0, 0, 0, 0, now(), now())
  ON CONFLICT (id) DO UPDATE SET balance_sun = accounts.balance_sun + 1, updated_at = EXCLUDED.updated_at;
INSERT INTO journals (id, account_id, kind, command_id, order_id, memo, amount_sun, amount_usdt, created_at) VALUES ('jrn_pgb_' || :n || '_' || :client_id, 'acc_bench' || :acc, 'adjustment', 'pgb_' || :n, NULL, 'bench', 1, 0, now());
INSERT INTO journal_lines (journal_id, line_no, ledger_account, currency, amount) VALUES ('jrn_pgb_' || :n || '_' || :client_id, 0, 'system:support_adjustments', 'TRX', -1), ('jrn_pgb_' || :n || '_' || :client_id, 1, 'customer:acc_bench' || :acc || ':trx', 'TRX', 1);
INSERT INTO outbox (destination, message_id, account_id, payload, trace_context, created_at) VALUES ('account-events', 'evt_pgb_' || :n || '_' || :client_id, 'acc_bench' || :acc, '{"type":"balance.credited","data":{"amount_sun":1}}', NULL, now()) ON CONFLICT (message_id) DO NOTHING;
UPDATE command_results SET outcome = 'applied', http_status = 201, body = '{"ok":true}', processed_at = now() WHERE command_id = 'pgb_' || :n || '_' || :client_id;
UPDATE consumer_offsets SET next_offset = next_offset + 1, updated_at = now() WHERE consumer_group = 'bench' AND topic = 't' AND partition = :acc;
NOTIFY outbox;
COMMIT;
