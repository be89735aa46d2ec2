-- Up Migration

-- The relay marks what it published with one cursor per account-commands partition instead of an UPDATE of
-- every row (a new version of each ~1 KB row, its index entries and its WAL, five rows per order).
-- A partition's slices are one transaction after another (each waits for the stored offset's lock, and takes
-- its row ids after it), so within one partition the ids of committed rows grow in commit order: every row of
-- partition p with an id above the cursor is unpublished, and no row below it can still appear.
-- Across partitions ids are not in commit order, which is why there is a cursor per partition.
-- Rows written before this migration (source_partition NULL) keep the old way: published_at, set per row.
ALTER TABLE outbox ADD COLUMN source_partition integer;

CREATE TABLE outbox_cursors (
  source_partition  integer PRIMARY KEY,
  published_through bigint NOT NULL
);

-- published_at is set only on legacy rows (by the relay) and by `ops restore` (rows found on the log); such a
-- row leaves the index. Every other row stays in it: the cursor, not the index, says it was published.
CREATE INDEX outbox_unpublished_by_partition ON outbox (source_partition, id) WHERE published_at IS NULL;
DROP INDEX outbox_unpublished;

-- The unpublished rows, in id order within each partition (legacy rows last), at most `per_partition` of each
-- partition (NULL: all). The partitions are found by skipping through the index (one probe each), and each
-- partition's rows are a range of it above its cursor: a poll costs the same with a million rows published.
-- PL/pgSQL: its plan is kept for the session (the relay's connection), where a SQL function's body is planned
-- at every call (about 1 ms here, more than the read). jit off: with no limit the planner's estimate (every row of
-- every partition) would compile the plan, 250 ms for a count of a few rows.
CREATE FUNCTION outbox_unpublished_rows(per_partition integer) RETURNS SETOF outbox LANGUAGE plpgsql STABLE SET jit = off AS $$
BEGIN
  RETURN QUERY WITH RECURSIVE parts(p) AS (
    SELECT min(source_partition) FROM outbox WHERE published_at IS NULL
    UNION ALL
    SELECT (SELECT min(o.source_partition) FROM outbox o WHERE o.published_at IS NULL AND o.source_partition > parts.p)
    FROM parts WHERE parts.p IS NOT NULL
  )
  SELECT rows.* FROM parts CROSS JOIN LATERAL (
    SELECT o.* FROM outbox o
    -- The partition as a range of the index, (p, cursor) exclusive to p inclusive, not as `source_partition = p`:
    -- given the equality the planner took the primary key's order for this one and walked it from the cursor (or
    -- from the start) through every later row of every other partition, filtering.
    WHERE o.published_at IS NULL AND o.source_partition <= parts.p
      AND (o.source_partition, o.id) > (parts.p, COALESCE((SELECT c.published_through FROM outbox_cursors c WHERE c.source_partition = parts.p), 0))
    ORDER BY o.source_partition, o.id LIMIT per_partition
  ) rows
  WHERE parts.p IS NOT NULL
  UNION ALL
  (SELECT o.* FROM outbox o WHERE o.published_at IS NULL AND o.source_partition IS NULL ORDER BY o.id LIMIT per_partition);
END
$$;

-- What the relay has not put on the log yet (health's backlog gauge, the replay's wait, tests).
CREATE VIEW outbox_unpublished AS SELECT * FROM outbox_unpublished_rows(NULL);

-- Down Migration

DROP VIEW outbox_unpublished;
DROP FUNCTION outbox_unpublished_rows(integer);
UPDATE outbox o SET published_at = now()
  FROM outbox_cursors c WHERE o.source_partition = c.source_partition AND o.id <= c.published_through AND o.published_at IS NULL;
CREATE INDEX outbox_unpublished ON outbox (id) WHERE published_at IS NULL;
DROP INDEX outbox_unpublished_by_partition;
DROP TABLE outbox_cursors;
ALTER TABLE outbox DROP COLUMN source_partition;
