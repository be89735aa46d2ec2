-- Up Migration

-- Which log this database was built from (services/platform/log-identity.ts): the network, the Kafka
-- cluster id and, per declared topic, its full name and topic id. Written once, on the first start
-- against an empty database (or by `ops restore`); every later start compares and refuses a mismatch.
CREATE TABLE log_identity (
  singleton   boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  network     text NOT NULL,
  cluster_id  text NOT NULL,
  -- topic key (topics/index.ts) -> { "topic": full name, "id": topic id }
  topics      jsonb NOT NULL,
  stamped_at  timestamptz NOT NULL DEFAULT now()
);

-- Down Migration
DROP TABLE log_identity;
