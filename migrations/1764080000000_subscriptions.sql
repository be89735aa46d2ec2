-- Up Migration

-- Subscriptions (contract.md section 9), written by the processor only.
CREATE TABLE subscriptions (
  id text PRIMARY KEY,
  account_id text NOT NULL,
  client_subscription_id text,
  request_hash text NOT NULL,
  kind text NOT NULL,
  status text NOT NULL,
  receiver text NOT NULL,
  resource text NOT NULL,
  amount bigint NOT NULL,
  tier text,
  threshold_amount bigint,
  max_price_sun bigint,
  max_refills_per_day integer NOT NULL,
  refills_today integer NOT NULL,
  -- The UTC day (YYYY-MM-DD) refills_today counts.
  refill_day text,
  last_refill_at timestamptz,
  last_order_id text,
  reason text,
  daily_fee_sun bigint,
  next_billing_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  UNIQUE (account_id, client_subscription_id)
);
CREATE INDEX subscriptions_account_created ON subscriptions (account_id, created_at DESC, id DESC);
-- One live subscription per receiver and resource per account (3024), and the watcher's work.
CREATE UNIQUE INDEX subscriptions_live_receiver ON subscriptions (account_id, receiver, resource) WHERE status <> 'ended';
CREATE INDEX subscriptions_watched ON subscriptions (receiver) WHERE status <> 'ended';

ALTER TABLE orders ADD COLUMN subscription_id text;
CREATE INDEX orders_subscription ON orders (subscription_id) WHERE subscription_id IS NOT NULL;

-- The watcher's checkpoint: the last block whose transactions it has applied to its receivers.
CREATE TABLE subscription_watcher_position (
  id text PRIMARY KEY,
  block_number bigint NOT NULL,
  updated_at timestamptz NOT NULL
);

-- Down Migration
DROP TABLE subscription_watcher_position;
DROP INDEX orders_subscription;
ALTER TABLE orders DROP COLUMN subscription_id;
DROP TABLE subscriptions;
