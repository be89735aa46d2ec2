-- Up Migration

-- The balance.low alert threshold per account (on the available balance); NULL keeps the alert off.
ALTER TABLE accounts ADD COLUMN low_balance_threshold_sun bigint CHECK (low_balance_threshold_sun >= 0);

-- Down Migration
ALTER TABLE accounts DROP COLUMN low_balance_threshold_sun;
