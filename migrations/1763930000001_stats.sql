-- Up Migration
-- The stats projection (services/stats): built only from <network>.order-events, never from the orders
-- table, so it can be dropped and rebuilt from the topic (`./bin/ops rebuild-stats`). Its offsets live
-- in consumer_offsets (group stats-projection), written in the same transaction as these rows.

-- What each order currently adds (counting rules of spec section 2, AccountStats); an event replaces the
-- order's row and the aggregates below move by the difference. Also the exact source for range edges.
CREATE TABLE stats_orders (
  order_id     text PRIMARY KEY,
  account_id   text NOT NULL,
  -- Epoch milliseconds: the stats reads group by local hour in integer arithmetic (no numeric epoch maths).
  created_ms   bigint NOT NULL,
  receiver     text NOT NULL,
  energy       bigint NOT NULL,
  spent_sun    bigint NOT NULL,
  -- price_sun_per_unit * energy: the weight behind avg_price_sun_per_65k.
  price_energy bigint NOT NULL
);
CREATE INDEX stats_orders_account_time ON stats_orders (account_id, created_ms) INCLUDE (receiver, energy, spent_sun, price_energy);

-- Per account and UTC hour of creation (epoch milliseconds of the hour's start).
CREATE TABLE stats_hourly (
  account_id   text NOT NULL,
  hour_ms      bigint NOT NULL,
  orders       bigint NOT NULL,
  energy       bigint NOT NULL,
  spent_sun    bigint NOT NULL,
  price_energy bigint NOT NULL,
  PRIMARY KEY (account_id, hour_ms)
);

-- Per account, UTC day of creation and receiver (top_receivers).
CREATE TABLE stats_receiver_daily (
  account_id   text NOT NULL,
  day          date NOT NULL,
  receiver     text NOT NULL,
  orders       bigint NOT NULL,
  energy       bigint NOT NULL,
  spent_sun    bigint NOT NULL,
  PRIMARY KEY (account_id, day, receiver)
);

-- order-events records the projection could not decode (kept apart from the processor's table, which a
-- replay of account-commands must reproduce).
CREATE TABLE stats_undecodable (
  topic     text NOT NULL,
  partition integer NOT NULL,
  "offset"  bigint NOT NULL,
  error     text NOT NULL,
  seen_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (topic, partition, "offset")
);

-- Down Migration
DROP TABLE stats_undecodable, stats_receiver_daily, stats_hourly, stats_orders;
