-- Up Migration

-- The purge (services/ops/purge.ts) deletes short-lived identity rows and old history by age; these let
-- each of its deletes find its rows by an index instead of a scan of the whole table.
CREATE INDEX IF NOT EXISTS bootstrap_tokens_by_expiry ON bootstrap_tokens (expires_at);
CREATE INDEX IF NOT EXISTS quotes_by_expiry ON quotes (expires_at);
CREATE INDEX IF NOT EXISTS sign_ins_by_time ON sign_ins (signed_in_at);
CREATE INDEX IF NOT EXISTS audit_log_by_time ON audit_log (at);
