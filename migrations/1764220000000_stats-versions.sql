-- Up Migration
-- One row per account: the id of the last transaction that projected any of its order events, written by the
-- stats projection in that same transaction (services/stats/store.ts). GET /v1/account/stats keeps the part of
-- an answer that the rollups give (whole days, whole months, receivers) in memory under this version and reads
-- it again only when the version moved (services/stats/read-cache.ts). A transaction id is never reused in a
-- cluster, so a version cannot come back after `rebuild-stats` empties the table (an account without a row is
-- read in full and not kept).
CREATE TABLE stats_account_versions (
  account_id text PRIMARY KEY,
  version    bigint NOT NULL
);
INSERT INTO stats_account_versions (account_id, version)
  SELECT DISTINCT account_id, pg_current_xact_id()::text::bigint FROM stats_orders;

-- Down Migration
DROP TABLE stats_account_versions;
