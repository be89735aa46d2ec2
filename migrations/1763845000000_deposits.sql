-- Up Migration

-- Deposits as the ledger processor keeps them (log-derived: replayed). One row per TRX transfer or USDT
-- Transfer log to a deposit address; held rows wait for a rate or for support (ops credit-held).
CREATE TABLE deposits (
  deposit_id             text PRIMARY KEY,
  account_id             text NOT NULL REFERENCES accounts (id),
  asset                  text NOT NULL CHECK (asset IN ('TRX', 'USDT')),
  address                text NOT NULL,
  sender                 text,
  txid                   text NOT NULL,
  log_index              integer NOT NULL,
  block_number           bigint NOT NULL,
  block_timestamp        timestamptz NOT NULL,
  amount                 bigint NOT NULL CHECK (amount >= 0),
  confirmations_required integer NOT NULL,
  status                 text NOT NULL CHECK (status IN ('credited', 'pending_rate', 'held_below_min', 'held_for_review',
                           'unclaimed_residual', 'held_retired_address')),
  journal_id             text REFERENCES journals (id),
  amount_sun             bigint NOT NULL,
  rate                   bigint,
  rate_source            text,
  spread_bps             integer,
  seen_at                timestamptz NOT NULL,
  credited_at            timestamptz
);
CREATE INDEX deposits_by_account ON deposits (account_id, seen_at DESC, deposit_id DESC);
CREATE INDEX deposits_waiting ON deposits (status) WHERE status <> 'credited';
CREATE UNIQUE INDEX deposits_by_journal ON deposits (journal_id) WHERE journal_id IS NOT NULL;

-- Retired deposit addresses are looked up by the watcher.
CREATE INDEX accounts_by_retired_deposit_address ON accounts USING gin (retired_deposit_addresses jsonb_path_ops);

-- Where the deposit watcher stands: the next solidified block to scan. Not derived from the log.
CREATE TABLE deposit_watcher_position (
  watcher    text PRIMARY KEY,
  next_block bigint NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Down Migration
DROP TABLE deposit_watcher_position, deposits;
DROP INDEX accounts_by_retired_deposit_address;
