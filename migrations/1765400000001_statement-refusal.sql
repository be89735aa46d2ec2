-- Up Migration

-- Lets one statement refuse itself: `CASE WHEN <broken rule> THEN refuse_statement('<reason>') END` in a
-- statement that writes through CTEs raises, and the statement's every write is undone with it, without a
-- transaction of its own (BEGIN and COMMIT are a round trip each). services/delivery/signed-sets.ts stores a
-- pass's signed sets this way: the sets, their transaction ids, refused as a whole when an id is another
-- order's. SQLSTATE P0001 (raise_exception), the message the reason.
CREATE FUNCTION refuse_statement(reason text) RETURNS integer LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION USING ERRCODE = 'raise_exception', MESSAGE = reason;
END
$$;

-- Down Migration

DROP FUNCTION refuse_statement(text);
