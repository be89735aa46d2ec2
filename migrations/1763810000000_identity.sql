-- Up Migration

-- Identity fields of the processor-owned accounts table (log-derived: replayed).
ALTER TABLE accounts
  ADD COLUMN email                     text,
  ADD COLUMN deposit_address           text,
  ADD COLUMN deposit_index             integer,
  ADD COLUMN deposit_issued_at         timestamptz,
  ADD COLUMN retired_deposit_addresses jsonb NOT NULL DEFAULT '[]';
CREATE UNIQUE INDEX accounts_by_deposit_address ON accounts (deposit_address) WHERE deposit_address IS NOT NULL;
CREATE INDEX accounts_by_owner_address ON accounts (owner_address) WHERE owner_address IS NOT NULL;

-- Derivation indexes of deposit addresses (m/44'/195'/0'/0/<n>), drawn by the API and carried in the
-- command, so a replay derives nothing. Never reused; a gap is harmless.
CREATE SEQUENCE deposit_address_index_seq MINVALUE 0 START 0;

-- Everything below is written by the API directly; not derived from the log (notReplayedTables).

-- Address challenges: single use, ten minutes.
CREATE TABLE auth_challenges (
  nonce      text PRIMARY KEY,
  address    text NOT NULL,
  purpose    text NOT NULL,
  message    text NOT NULL,
  issued_at  timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at    timestamptz
);
CREATE INDEX auth_challenges_by_expiry ON auth_challenges (expires_at);

-- Bootstrap tokens, stored as SHA-256 of the token: a dump does not yield a usable token.
CREATE TABLE bootstrap_tokens (
  token_hash text PRIMARY KEY,
  id         text NOT NULL UNIQUE,
  address    text NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL
);

-- Dashboard sessions: cookie token stored as SHA-256; expiry slides with use.
CREATE TABLE sessions (
  id         text PRIMARY KEY,
  token_hash text NOT NULL UNIQUE,
  csrf_token text NOT NULL,
  account_id text NOT NULL,
  address    text NOT NULL,
  ip         text,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz
);
CREATE INDEX sessions_by_account_address ON sessions (account_id, address);

CREATE TABLE sign_ins (
  id           bigserial PRIMARY KEY,
  account_id   text NOT NULL,
  address      text NOT NULL,
  ip           text,
  signed_in_at timestamptz NOT NULL
);
CREATE INDEX sign_ins_by_account_address ON sign_ins (account_id, address, signed_in_at DESC);

-- Members other than the owner (the owner is accounts.owner_address).
CREATE TABLE account_members (
  account_id text NOT NULL,
  address    text NOT NULL,
  role       text NOT NULL CHECK (role IN ('editor', 'viewer')),
  added_at   timestamptz NOT NULL,
  PRIMARY KEY (account_id, address)
);
CREATE INDEX account_members_by_address ON account_members (address);

-- API keys: the HMAC secret is kept AES-256-GCM sealed under API_KEY_ENCRYPTION_KEY (not in the
-- database) and bound to its key id, so a dump alone cannot sign.
CREATE TABLE api_keys (
  id           text PRIMARY KEY,
  account_id   text NOT NULL,
  name         text,
  scopes       text[] NOT NULL,
  secret_enc   text NOT NULL,
  created_at   timestamptz NOT NULL,
  last_used_at timestamptz,
  revoked_at   timestamptz
);
CREATE INDEX api_keys_by_account ON api_keys (account_id, created_at DESC);

CREATE TABLE address_book (
  id         text PRIMARY KEY,
  account_id text NOT NULL,
  address    text NOT NULL,
  label      text NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  UNIQUE (account_id, address)
);
CREATE INDEX address_book_by_account ON address_book (account_id, created_at DESC, id DESC);

CREATE TABLE audit_log (
  id         bigserial PRIMARY KEY,
  account_id text NOT NULL,
  actor      text NOT NULL,
  action     text NOT NULL,
  details    jsonb,
  at         timestamptz NOT NULL
);
CREATE INDEX audit_log_by_account ON audit_log (account_id, at DESC);

-- Down Migration
DROP TABLE audit_log, address_book, api_keys, account_members, sign_ins, sessions, bootstrap_tokens, auth_challenges;
DROP SEQUENCE deposit_address_index_seq;
DROP INDEX accounts_by_owner_address, accounts_by_deposit_address;
ALTER TABLE accounts DROP COLUMN retired_deposit_addresses, DROP COLUMN deposit_issued_at, DROP COLUMN deposit_index,
  DROP COLUMN deposit_address, DROP COLUMN email;
