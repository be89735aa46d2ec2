-- Up Migration

-- A database built by `ops restore` holds the log up to where the restore stopped; records appended after that
-- were decided by the processor of the lost database (its callers answered), so the first processor started on
-- the restored database applies them the way the log says (refused iff a `command.refused` marker is on the
-- log), not by its live deadline rule (services/ops/restore.ts, catchUpAfterRestore; docs/recovery.md). The
-- restore writes this row with until_offsets NULL; that processor stores there the end of account-commands at
-- its start ({"partition": "offset"}), so a catch-up that crashed goes on to the same end, and deletes the row
-- when it has caught up. No row: a normal database, the processor's live policy from the first record.
CREATE TABLE restore_catch_up (
  singleton     boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  until_offsets jsonb
);
