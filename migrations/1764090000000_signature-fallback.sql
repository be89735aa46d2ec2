-- Single-use request signatures while Redis is away (services/api/auth/api-key-auth.ts): the API falls back
-- to this table so a POST/PATCH/DELETE signature still cannot be replayed. Not state derived from the log.
CREATE TABLE used_signatures (
  signature_hash text PRIMARY KEY,
  expires_at     timestamptz NOT NULL
);
CREATE INDEX used_signatures_expiry ON used_signatures (expires_at);
