-- Up Migration

-- Orders as the ledger processor keeps them (derived from account-commands; the processor is the only
-- writer). Allocations and undelegations carry the signed transactions, stored before any broadcast.
CREATE TABLE orders (
  id                  text PRIMARY KEY,
  account_id          text NOT NULL REFERENCES accounts (id),
  client_order_id     text,
  request_hash        text NOT NULL,
  quote_id            text,
  resource            text NOT NULL CHECK (resource IN ('energy', 'bandwidth', 'activation')),
  amount              bigint,
  delivered_amount    bigint,
  partial             boolean NOT NULL DEFAULT false,
  tier                text,
  duration_seconds    integer,
  receiver            text NOT NULL,
  source              text NOT NULL,
  status              text NOT NULL CHECK (status IN ('created', 'paid', 'allocating', 'delegated', 'confirmed', 'active',
                        'expired', 'reclaimed', 'failed', 'refunded')),
  confirm_status      text NOT NULL CHECK (confirm_status IN ('unconfirmed', 'confirmed', 'confirm_failed')),
  price_sun_per_unit  bigint,
  pay_amount_sun      bigint NOT NULL,
  activate_amount_sun bigint NOT NULL,
  total_amount_sun    bigint NOT NULL,
  refunded_amount_sun bigint NOT NULL,
  supplier            text NOT NULL CHECK (supplier IN ('pool', 'provider')),
  ratio_limit         bigint,
  ratio_weight        bigint,
  allocations         jsonb NOT NULL,
  delegated_at        timestamptz,
  expires_at          timestamptz,
  close_reason        text CHECK (close_reason IN ('expired', 'reclaimed')),
  close_requested_at  timestamptz,
  undelegations       jsonb NOT NULL,
  reclaim_hash        text,
  reclaimed_at        timestamptz,
  memo                text,
  failure             jsonb,
  created_at          timestamptz NOT NULL,
  updated_at          timestamptz NOT NULL
);
CREATE UNIQUE INDEX orders_client_id ON orders (account_id, client_order_id) WHERE client_order_id IS NOT NULL;
CREATE UNIQUE INDEX orders_quote ON orders (account_id, quote_id) WHERE quote_id IS NOT NULL;
CREATE INDEX orders_by_account ON orders (account_id, created_at DESC, id DESC);
-- The chain roles' work lists.
CREATE INDEX orders_allocating ON orders (created_at) WHERE status IN ('allocating', 'delegated');
CREATE INDEX orders_live ON orders (expires_at) WHERE status IN ('confirmed', 'active');

-- Idempotency-Key records (24 h), decided by the processor, derived from the log.
CREATE TABLE order_idempotency (
  account_id   text NOT NULL,
  key          text NOT NULL,
  scope        text NOT NULL,
  request_hash text NOT NULL,
  order_id     text NOT NULL,
  status       smallint NOT NULL,
  created_at   timestamptz NOT NULL,
  expires_at   timestamptz NOT NULL,
  PRIMARY KEY (account_id, key)
);

-- Quotes: written by the API (POST /v1/quotes), not derived from the log; the order that uses one
-- carries its total and its end of life.
CREATE TABLE quotes (
  id                  text PRIMARY KEY,
  account_id          text NOT NULL,
  resource            text NOT NULL,
  amount              bigint,
  tier                text,
  receiver            text NOT NULL,
  price_sun_per_unit  bigint,
  pay_amount_sun      bigint NOT NULL,
  activate_amount_sun bigint NOT NULL,
  total_amount_sun    bigint NOT NULL,
  receiver_active     boolean NOT NULL,
  expires_at          timestamptz NOT NULL,
  created_at          timestamptz NOT NULL
);

-- Down Migration
DROP TABLE quotes, order_idempotency, orders;
