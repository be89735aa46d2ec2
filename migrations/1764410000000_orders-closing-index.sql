-- Up Migration

-- The `closing` work list (services/delivery/work.ts, read by the confirmer and the scheduler every pass):
-- orders whose undelegations are signed and not yet seen landed. Without an index of its own the list was a
-- scan of every live order (90 ms a call with 44,000 active orders in bench/orders.ts); this one holds only
-- the orders on the list. The predicate is the list's condition, word for word, so the planner can use it.
CREATE INDEX orders_closing ON orders (created_at)
  WHERE (status IN ('confirmed', 'active') OR (status IN ('refunded', 'failed') AND reclaimed_at IS NULL
    AND (allocations @> '[{"kind": "delegate", "landed": true}]'::jsonb OR allocations @> '[{"kind": "delegate", "stranded": true}]'::jsonb)))
    AND undelegations <> '[]'::jsonb;

-- Down Migration

DROP INDEX orders_closing;
