-- Up Migration

-- The stake the orders hold on chain, per pool address, receiver and resource ('ENERGY' | 'BANDWIDTH'): the sum
-- of heldStake (services/domain/orders/rules.ts) over every order, i.e. what services/delivery/open-stake.ts summed
-- by expanding the allocations of every open order of the receivers asked (242 ms a call with thousands of
-- active orders per receiver, the largest share of PostgreSQL's CPU per settled order). The processor moves it in
-- the transaction that writes the orders (services/processor/order-store.ts), so a replay of the log rebuilds it;
-- a key whose stake falls to zero loses its row. Read by receiver (the primary key leads with it).
CREATE TABLE order_stake (
  receiver     text NOT NULL,
  pool_address text NOT NULL,
  resource     text NOT NULL CHECK (resource IN ('ENERGY', 'BANDWIDTH')),
  sun          bigint NOT NULL,  -- no CHECK (sun >= 0): an upsert's proposed row carries the (maybe negative) change
  PRIMARY KEY (receiver, pool_address, resource)
);

INSERT INTO order_stake (receiver, pool_address, resource, sun)
SELECT o.receiver, a ->> 'from', CASE WHEN o.resource = 'bandwidth' THEN 'BANDWIDTH' ELSE 'ENERGY' END, sum((a ->> 'sun')::numeric)::bigint
  FROM orders o CROSS JOIN LATERAL jsonb_array_elements(o.allocations) AS a
 WHERE (o.status IN ('confirmed', 'active') OR (o.status IN ('refunded', 'failed') AND o.reclaimed_at IS NULL))
   AND o.resource <> 'activation'
   AND a ->> 'kind' = 'delegate' AND ((a ->> 'landed')::boolean IS TRUE OR (a ->> 'stranded')::boolean IS TRUE)
 GROUP BY 1, 2, 3
HAVING sum((a ->> 'sun')::numeric) <> 0;

-- The orders holding stake, by receiver and the time they leave it (open-stake.ts, `leavingAt`): -infinity for
-- those already on their way out (undelegations stored, close asked, failed), else expires_at. The stake of
-- the orders leaving at a time is then a range read per receiver, however many orders stay. The predicate
-- holds every order heldStake counts (a refunded or failed one only with a landed or stranded delegation);
-- open-stake.ts repeats it and the expression word for word so the planner can use the index.
CREATE INDEX orders_holding ON orders (receiver, (CASE
    WHEN NOT (resource <> 'activation' AND (status IN ('confirmed', 'active') OR (status IN ('refunded', 'failed') AND reclaimed_at IS NULL
      AND (allocations @> '[{"kind": "delegate", "landed": true}]'::jsonb OR allocations @> '[{"kind": "delegate", "stranded": true}]'::jsonb)))) THEN NULL
    WHEN undelegations <> '[]'::jsonb OR close_reason IS NOT NULL OR status = 'failed' THEN '-infinity'::timestamptz
    ELSE expires_at END))
  WHERE resource <> 'activation' AND (status IN ('confirmed', 'active') OR (status IN ('refunded', 'failed') AND reclaimed_at IS NULL
      AND (allocations @> '[{"kind": "delegate", "landed": true}]'::jsonb OR allocations @> '[{"kind": "delegate", "stranded": true}]'::jsonb)));

-- The planner takes no statistics from a partial index's expression: without these it guessed a third of the
-- receivers' holding orders leaving (thousands, where there are tens) and planned a parallel query whose
-- workers took 100 ms to start for 1 ms of work. The expression is NULL for the orders not holding stake, so
-- over the whole table its statistics say how few leave.
CREATE STATISTICS orders_leaving ON (CASE
    WHEN NOT (resource <> 'activation' AND (status IN ('confirmed', 'active') OR (status IN ('refunded', 'failed') AND reclaimed_at IS NULL
      AND (allocations @> '[{"kind": "delegate", "landed": true}]'::jsonb OR allocations @> '[{"kind": "delegate", "stranded": true}]'::jsonb)))) THEN NULL
    WHEN undelegations <> '[]'::jsonb OR close_reason IS NOT NULL OR status = 'failed' THEN '-infinity'::timestamptz
    ELSE expires_at END) FROM orders;
ANALYZE orders;

-- Down Migration

DROP STATISTICS orders_leaving;
DROP INDEX orders_holding;
DROP TABLE order_stake;
