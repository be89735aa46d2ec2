-- Up Migration
-- Stats rollups that answer 13 months in a few hundred rows at any quarter-hour UTC offset (see
-- services/stats/rollups.ts). They replace stats_hourly (13 months of hours were ~9,500 rows per request,
-- and a +330 offset fell back to every order). The projection is rebuilt from order-events: the stats
-- tables are emptied and the stats-projection group's stored offsets removed, so the stats role projects
-- the topic again from the beginning when it starts (`./bin/ops rebuild-stats` does the same, with progress).

-- Per account and UTC day: the whole day (size 96, block 0) and every aligned run of `size` quarter-hours
-- (64, 32, 16, 8, 4, 2, 1; block = quarter / size). Keyed so that one (size, block) over a range of days
-- is one index range.
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

-- Orders per quarter-hour of the UTC day (q0..q95): per UTC day, and per UTC month and UTC weekday.
DO $$
DECLARE quarters text := (SELECT string_agg(format('q%s integer NOT NULL DEFAULT 0', i), ', ' ORDER BY i) FROM generate_series(0, 95) i);
BEGIN
  EXECUTE format('CREATE TABLE stats_grid_daily (account_id text NOT NULL, day_ms bigint NOT NULL, %s, PRIMARY KEY (account_id, day_ms))', quarters);
  EXECUTE format('CREATE TABLE stats_grid_monthly (account_id text NOT NULL, month_ms bigint NOT NULL, weekday smallint NOT NULL, %s, PRIMARY KEY (account_id, month_ms, weekday))', quarters);
END $$;

-- Per account, UTC month (epoch ms of its first day) and receiver: top_receivers over whole months.
CREATE TABLE stats_receiver_monthly (
  account_id text NOT NULL,
  month_ms   bigint NOT NULL,
  receiver   text NOT NULL,
  orders     bigint NOT NULL,
  energy     bigint NOT NULL,
  spent_sun  bigint NOT NULL,
  PRIMARY KEY (account_id, month_ms, receiver)
);

DROP TABLE stats_hourly;
TRUNCATE stats_orders, stats_receiver_daily, stats_undecodable;
DELETE FROM consumer_offsets WHERE consumer_group = 'stats-projection';

-- Down Migration
DROP TABLE stats_day_blocks, stats_grid_daily, stats_grid_monthly, stats_receiver_monthly;
CREATE TABLE stats_hourly (
  account_id   text NOT NULL,
  hour_ms      bigint NOT NULL,
  orders       bigint NOT NULL,
  energy       bigint NOT NULL,
  spent_sun    bigint NOT NULL,
  price_energy bigint NOT NULL,
  PRIMARY KEY (account_id, hour_ms)
);
TRUNCATE stats_orders, stats_receiver_daily, stats_undecodable;
DELETE FROM consumer_offsets WHERE consumer_group = 'stats-projection';
