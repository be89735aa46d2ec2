-- Up Migration

-- Accounts as the ledger processor keeps them. The processor is their only writer (one per account,
-- by partition), so balances need no row locks against each other.
CREATE TABLE accounts (
  id               text PRIMARY KEY,
  brand            text NOT NULL,
  network          text NOT NULL CHECK (network IN ('mainnet', 'nile')),
  owner_address    text,
  display_name     text,
  status           text NOT NULL CHECK (status IN ('unfunded', 'active', 'suspended', 'closed')),
  balance_sun      bigint NOT NULL DEFAULT 0,
  balance_usdt     bigint NOT NULL DEFAULT 0,
  reserved_sun     bigint NOT NULL DEFAULT 0 CHECK (reserved_sun >= 0),
  deposited_sun    bigint NOT NULL DEFAULT 0,
  spent_sun        bigint NOT NULL DEFAULT 0,
  refunded_sun     bigint NOT NULL DEFAULT 0,
  orders_created   integer NOT NULL DEFAULT 0,
  energy_delegated bigint NOT NULL DEFAULT 0,
  created_at       timestamptz NOT NULL,
  updated_at       timestamptz NOT NULL,
  CHECK (balance_sun >= reserved_sun)
);

-- Double-entry journals: one row per journal, its lines below. amount_sun/amount_usdt repeat the net
-- effect on the customer's balance for the ledger read; the lines are the truth.
CREATE TABLE journals (
  id          text PRIMARY KEY,
  account_id  text NOT NULL REFERENCES accounts (id),
  kind        text NOT NULL CHECK (kind IN ('deposit', 'order_charge', 'order_refund', 'referral_payout',
                'subscription_fee', 'subscription_usage', 'reserve_fee', 'invoice', 'withdrawal', 'adjustment')),
  command_id  text NOT NULL,
  order_id    text,
  memo        text,
  amount_sun  bigint NOT NULL,
  amount_usdt bigint NOT NULL,
  created_at  timestamptz NOT NULL
);
CREATE INDEX journals_by_account ON journals (account_id, created_at DESC, id DESC);

CREATE TABLE journal_lines (
  journal_id     text NOT NULL REFERENCES journals (id),
  line_no        smallint NOT NULL,
  ledger_account text NOT NULL,
  currency       text NOT NULL CHECK (currency IN ('TRX', 'USDT')),
  amount         bigint NOT NULL,
  PRIMARY KEY (journal_id, line_no)
);
CREATE INDEX journal_lines_by_ledger_account ON journal_lines (ledger_account, currency);

-- The database refuses an unbalanced journal at commit, whatever code wrote it.
CREATE FUNCTION assert_journal_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM journal_lines WHERE journal_id = NEW.journal_id
             GROUP BY currency HAVING sum(amount) <> 0) THEN
    RAISE EXCEPTION 'journal % does not balance', NEW.journal_id;
  END IF;
  RETURN NULL;
END $$;
CREATE CONSTRAINT TRIGGER journal_balanced AFTER INSERT ON journal_lines
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION assert_journal_balanced();

-- One row per command ever seen: applied once, and the answer a waiting caller reads when it missed
-- the Redis reply. An API instance that gives up inserts a 'refused' row first, which the processor
-- then honours (the primary key decides the race).
CREATE TABLE command_results (
  command_id     text PRIMARY KEY,
  account_id     text NOT NULL,
  command_type   text NOT NULL,
  outcome        text NOT NULL CHECK (outcome IN ('pending', 'applied', 'rejected', 'refused')),
  http_status    smallint,
  body           jsonb,
  error          jsonb,
  refusal_reason text CHECK (refusal_reason IN ('deadline_passed', 'abandoned')),
  processed_at   timestamptz NOT NULL DEFAULT now()
);

-- Messages written in the same transaction as the state, relayed to Kafka afterwards.
CREATE TABLE outbox (
  id            bigserial PRIMARY KEY,
  destination   text NOT NULL CHECK (destination IN ('account-events', 'account-commands')),
  message_id    text NOT NULL UNIQUE,
  account_id    text NOT NULL,
  payload       jsonb NOT NULL,
  trace_context jsonb,
  created_at    timestamptz NOT NULL,
  published_at  timestamptz
);
CREATE INDEX outbox_unpublished ON outbox (id) WHERE published_at IS NULL;

-- Where each consumer group stands, per partition: the next offset to apply. Authoritative; Kafka's
-- own committed offsets are only a hint.
CREATE TABLE consumer_offsets (
  consumer_group text NOT NULL,
  topic          text NOT NULL,
  partition      integer NOT NULL,
  next_offset    bigint NOT NULL,
  updated_at     timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (consumer_group, topic, partition)
);

-- Records that could not be decoded are set aside (and skipped the same way by a replay).
CREATE TABLE undecodable_records (
  topic     text NOT NULL,
  partition integer NOT NULL,
  "offset"  bigint NOT NULL,
  error     text NOT NULL,
  seen_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (topic, partition, "offset")
);

-- Down Migration
DROP TABLE undecodable_records, consumer_offsets, outbox, command_results, journal_lines, journals, accounts;
DROP FUNCTION assert_journal_balanced();
