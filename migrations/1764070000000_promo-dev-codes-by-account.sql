-- Up Migration

-- The routing fee reads an account's entered codes on every provider-routed order (docs/routing-fee.md).
CREATE INDEX promo_dev_codes_by_account ON promo_dev_codes (entered_account_id) WHERE entered_account_id IS NOT NULL;

-- Down Migration
DROP INDEX promo_dev_codes_by_account;
