-- Up Migration

-- Batches (POST /v1/batches), written by the processor only. Items live in one jsonb array: a batch is
-- read and written whole, at most limits.max_batch_receivers items.
CREATE TABLE batches (
  id text PRIMARY KEY,
  account_id text NOT NULL,
  -- client_batch_id, or `idem:<Idempotency-Key>` when only the header was sent: the batch's idempotency key.
  batch_key text NOT NULL,
  client_batch_id text,
  request_hash text NOT NULL,
  items jsonb NOT NULL,
  created_at timestamptz NOT NULL,
  -- Set once, with batch.completed, when every receiver is terminal.
  finished_at timestamptz,
  final_status text,
  charged_sun bigint,
  UNIQUE (account_id, batch_key)
);
CREATE INDEX batches_account_created ON batches (account_id, created_at DESC, id DESC);
-- The executor's work: batches not finished yet.
CREATE INDEX batches_open ON batches (created_at) WHERE finished_at IS NULL;

ALTER TABLE orders ADD COLUMN batch_id text;
CREATE INDEX orders_batch ON orders (batch_id) WHERE batch_id IS NOT NULL;

-- Down Migration
DROP INDEX orders_batch;
ALTER TABLE orders DROP COLUMN batch_id;
DROP TABLE batches;
