-- Up Migration
-- Fewer, wider stats rows (services/stats/rollups.ts), so the projection writes about four rows per order
-- event instead of about twelve:
-- - stats_days replaces stats_day_blocks (eight rows per UTC day and quarter-hour touched) and
--   stats_grid_daily: one row per account and UTC day holding prefix sums over its quarter-hours, so the
--   head of a UTC day up to any quarter is one column, and orders per quarter-hour are differences of two.
-- - stats_orders keeps one index: its primary key leads with (account_id, created_ms), which the range
--   edges read; the projection finds an order's row by (account_id, created_ms, order_id), all three
--   carried by every order event and never changed. Before, a second index (with four INCLUDE columns)
--   cost as much to keep as the table itself.
-- Like 1764040000000_stats-rollups.sql: the stats tables are emptied and the stats-projection group's
-- stored offsets removed, so the stats role projects order-events again from the beginning when it starts
-- (`./bin/ops rebuild-stats` does the same, with progress).

DROP TABLE stats_day_blocks, stats_grid_daily, stats_orders;

-- What each order currently adds (counting rules of spec section 2, AccountStats); also the exact source
-- for the partial days at the ends of a range.
CREATE TABLE stats_orders (
  account_id   text NOT NULL,
  created_ms   bigint NOT NULL,
  order_id     text NOT NULL,
  receiver     text NOT NULL,
  energy       bigint NOT NULL,
  spent_sun    bigint NOT NULL,
  price_energy bigint NOT NULL,
  PRIMARY KEY (account_id, created_ms, order_id)
) WITH (fillfactor = 90);  -- an order's row is rewritten on every transition: room for the new version on its page (HOT)

-- Per account and UTC day (day_ms: epoch ms of its start): o<k>, e<k>, s<k> are the orders, delivered
-- energy and spent SUN of the day's quarter-hours [0, k), k = 1..96 (o96 is the whole day);
-- price_energy (the weight behind avg_price_sun_per_65k) only for the whole day.
DO $$
DECLARE columns text := (
  SELECT string_agg(format('o%s integer NOT NULL', k), ', ' ORDER BY k) || ', ' ||
         string_agg(format('e%s bigint NOT NULL', k), ', ' ORDER BY k) || ', ' ||
         string_agg(format('s%s bigint NOT NULL', k), ', ' ORDER BY k)
  FROM generate_series(1, 96) k);
BEGIN
  EXECUTE format('CREATE TABLE stats_days (account_id text NOT NULL, day_ms bigint NOT NULL, price_energy bigint NOT NULL, %s, PRIMARY KEY (account_id, day_ms)) WITH (fillfactor = 70)', columns);
END $$;

TRUNCATE stats_grid_monthly, stats_receiver_daily, stats_receiver_monthly, stats_undecodable;
DELETE FROM consumer_offsets WHERE consumer_group = 'stats-projection';

-- Down Migration
DROP TABLE stats_days, stats_orders;
CREATE TABLE stats_orders (
  order_id     text PRIMARY KEY,
  account_id   text NOT NULL,
  created_ms   bigint NOT NULL,
  receiver     text NOT NULL,
  energy       bigint NOT NULL,
  spent_sun    bigint NOT NULL,
  price_energy bigint NOT NULL
);
CREATE INDEX stats_orders_account_time ON stats_orders (account_id, created_ms) INCLUDE (receiver, energy, spent_sun, price_energy);
CREATE TABLE stats_day_blocks (
  account_id   text NOT NULL,
  size         smallint NOT NULL,
  block        smallint NOT NULL,
  day_ms       bigint NOT NULL,
  orders       bigint NOT NULL,
  energy       bigint NOT NULL,
  spent_sun    bigint NOT NULL,
  price_energy bigint NOT NULL,
  PRIMARY KEY (account_id, size, block, day_ms)
);
DO $$
DECLARE quarters text := (SELECT string_agg(format('q%s integer NOT NULL DEFAULT 0', i), ', ' ORDER BY i) FROM generate_series(0, 95) i);
BEGIN
  EXECUTE format('CREATE TABLE stats_grid_daily (account_id text NOT NULL, day_ms bigint NOT NULL, %s, PRIMARY KEY (account_id, day_ms))', quarters);
END $$;
TRUNCATE stats_grid_monthly, stats_receiver_daily, stats_receiver_monthly, stats_undecodable;
DELETE FROM consumer_offsets WHERE consumer_group = 'stats-projection';
