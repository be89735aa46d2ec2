-- Up Migration

-- Test-network promo codes: one per wallet, single use (entered_* once an account enters it).
CREATE TABLE promo_dev_codes (
  address text PRIMARY KEY,
  code text NOT NULL UNIQUE,
  fee_bps integer NOT NULL,
  duration_days integer NOT NULL,
  activate_by timestamptz,
  issued_at timestamptz NOT NULL,
  entered_account_id text,
  entered_at timestamptz
);

-- Down Migration
DROP TABLE promo_dev_codes;
