-- Up Migration

-- Wakes the broadcaster (LISTEN order_work, services/delivery/broadcaster.ts) when the processor commits
-- work for it: an order placed waiting for allocation, or an allocating order's signed set applied. Its poll
-- stays the fallback. The notification goes out at commit, once per transaction (PostgreSQL folds repeats);
-- the WHEN clauses keep every other write of the orders table free of it.
CREATE FUNCTION notify_order_work() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('order_work', '');
  RETURN NULL;
END
$$;
CREATE TRIGGER orders_work_placed AFTER INSERT ON orders
  FOR EACH ROW WHEN (NEW.status = 'allocating') EXECUTE FUNCTION notify_order_work();
CREATE TRIGGER orders_work_allocated AFTER UPDATE ON orders
  FOR EACH ROW WHEN (NEW.status = 'allocating' AND OLD.allocations IS DISTINCT FROM NEW.allocations) EXECUTE FUNCTION notify_order_work();

-- Down Migration
DROP TRIGGER orders_work_allocated ON orders;
DROP TRIGGER orders_work_placed ON orders;
DROP FUNCTION notify_order_work();
