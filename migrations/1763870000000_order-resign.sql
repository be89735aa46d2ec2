-- Up Migration

-- A stored undelegation that expired without landing is signed again: each fresh set is stored under
-- its own purpose, `close:<tx id of the first undelegation it replaces>`, still once per attempt.
ALTER TABLE order_signatures DROP CONSTRAINT order_signatures_purpose_check;
ALTER TABLE order_signatures ADD CONSTRAINT order_signatures_purpose_check
  CHECK (purpose IN ('allocate', 'close') OR purpose LIKE 'close:%');

-- Down Migration
DELETE FROM order_signatures WHERE purpose LIKE 'close:%';
ALTER TABLE order_signatures DROP CONSTRAINT order_signatures_purpose_check;
ALTER TABLE order_signatures ADD CONSTRAINT order_signatures_purpose_check CHECK (purpose IN ('allocate', 'close'));
