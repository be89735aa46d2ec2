-- Up Migration

-- The scheduler's `due-close` work list (services/orders/work-lists.ts, read every CHAIN_POLL_MS) was one
-- condition with an OR of a time bound and a reclaim asked, which no index answers: every pass read every open
-- order through orders_holding (36,000 rows/s with 20,000 active orders and nothing due, bench/README.md
-- "Idle CPU by role"). It is now three index reads whose ids are unioned: the expired live orders by
-- orders_live's range, and these two, which hold only the orders they name. Each predicate is its branch's
-- condition word for word, so the planner can use it.
CREATE INDEX orders_reclaim_asked ON orders (expires_at)
  WHERE status IN ('confirmed', 'active') AND close_reason = 'reclaimed' AND undelegations = '[]'::jsonb;

CREATE INDEX orders_stake_to_take_back ON orders (expires_at)
  WHERE (status IN ('refunded', 'failed') AND reclaimed_at IS NULL
    AND (allocations @> '[{"kind": "delegate", "landed": true}]'::jsonb OR allocations @> '[{"kind": "delegate", "stranded": true}]'::jsonb))
    AND undelegations = '[]'::jsonb;

-- Down Migration

DROP INDEX orders_stake_to_take_back;
DROP INDEX orders_reclaim_asked;
