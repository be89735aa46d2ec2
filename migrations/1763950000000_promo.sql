-- Up Migration

-- The network's promo (one row; a deployment serves one network). Written by the processor only.
CREATE TABLE promo_config (
  id smallint PRIMARY KEY DEFAULT 1 CHECK (id = 1),
  is_on boolean NOT NULL,
  token_id text NOT NULL,
  token_name text NOT NULL,
  drop_address text NOT NULL,
  starts_at timestamptz,
  ends_at timestamptz,
  cap_per_day integer,
  grant_energy bigint NOT NULL,
  grant_seconds bigint NOT NULL,
  forward_address text,
  command_id text NOT NULL
);

-- One row per address that claimed (one grant per address, whichever way it claimed).
CREATE TABLE promo_redemptions (
  address text PRIMARY KEY,
  method text NOT NULL CHECK (method IN ('signature', 'forward')),
  redeemed_at timestamptz NOT NULL,
  day date NOT NULL,
  status text NOT NULL CHECK (status IN ('granting', 'delegated', 'failed')),
  energy bigint NOT NULL,
  duration_seconds bigint NOT NULL,
  expires_at timestamptz,
  delegate_tx_id text,
  delegate_signed_tx text,
  pool_address text,
  stake_sun bigint,
  undelegate_tx_id text,
  undelegate_signed_tx text,
  returned_at timestamptz,
  failure text
);
CREATE INDEX promo_redemptions_day ON promo_redemptions (day);
CREATE INDEX promo_redemptions_open ON promo_redemptions (status) WHERE returned_at IS NULL;

-- Down Migration
DROP TABLE promo_redemptions;
DROP TABLE promo_config;
