-- Up Migration

-- The checkpointed consumer sends its last writes, the stored offset's compare-and-set and COMMIT in one
-- round trip (services/platform/db/bulk.ts, WriteGroup.sendAndCommit): the count of the compare-and-set's rows
-- is checked by the server, before the COMMIT in the same query text. Anything but 1 fails the statement
-- (SQLSTATE P0001: not a data error, so the consumer retries the slice rather than refusing a record), and
-- PostgreSQL runs nothing after a failed statement of a query text: the COMMIT never runs.
CREATE FUNCTION assert_one_row(n int, what text) RETURNS int LANGUAGE plpgsql AS $$
BEGIN
  IF n IS DISTINCT FROM 1 THEN
    RAISE EXCEPTION '%: % rows, expected 1', what, n USING ERRCODE = 'P0001';
  END IF;
  RETURN n;
END
$$;

-- Down Migration
DROP FUNCTION assert_one_row(int, text);
