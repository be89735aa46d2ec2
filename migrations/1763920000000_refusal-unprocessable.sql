-- Up Migration

-- A command the processor could not apply (its data refused by PostgreSQL, or pure code failing on it) is
-- refused with the reason `unprocessable` instead of stalling its partition.
ALTER TABLE command_results DROP CONSTRAINT IF EXISTS command_results_refusal_reason_check;
ALTER TABLE command_results ADD CONSTRAINT command_results_refusal_reason_check
  CHECK (refusal_reason IN ('deadline_passed', 'abandoned', 'unprocessable'));

-- Down Migration

ALTER TABLE command_results DROP CONSTRAINT IF EXISTS command_results_refusal_reason_check;
ALTER TABLE command_results ADD CONSTRAINT command_results_refusal_reason_check
  CHECK (refusal_reason IN ('deadline_passed', 'abandoned'));
