-- Up Migration

-- Transfer desk (contract.md section 12): one row per payment the deposit watcher saw to the desk address,
-- written only by the processor (services/processor/desk-store.ts). The payment id is the watcher's receipt
-- id (the txid for a TRX transfer): one payment, one row, one order, one return.
CREATE TABLE IF NOT EXISTS desk_payments (
  payment_id        text PRIMARY KEY,
  txid              text NOT NULL,
  log_index         integer NOT NULL,
  asset             text NOT NULL CHECK (asset IN ('TRX', 'USDT')),
  kind              text NOT NULL,
  sender            text,
  amount            bigint NOT NULL CHECK (amount > 0),
  memo              text,
  receiver          text,
  block_number      bigint NOT NULL,
  block_timestamp   timestamptz NOT NULL,
  status            text NOT NULL CHECK (status IN ('ordered', 'returning', 'returned', 'recorded')),
  order_id          text,
  refusal           text CHECK (refusal IN ('below_min', 'above_max', 'receiver_inactive', 'undelivered')),
  refund_sun        bigint NOT NULL DEFAULT 0 CHECK (refund_sun >= 0 AND refund_sun <= amount),
  return_fee_sun    bigint NOT NULL CHECK (return_fee_sun >= 0),
  return_txid       text,
  return_signed_tx  text,
  returned_at       timestamptz,
  created_at        timestamptz NOT NULL,
  updated_at        timestamptz NOT NULL,
  CHECK (status <> 'ordered' OR (order_id IS NOT NULL AND refusal IS NULL)),
  CHECK (status NOT IN ('returning', 'returned') OR (order_id IS NOT NULL AND refusal IS NOT NULL)),
  CHECK (status <> 'returned' OR refund_sun = 0 OR return_txid IS NOT NULL)
);

-- GET /v1/transfer-desk/orders/{txid} and the returner's work list.
CREATE INDEX IF NOT EXISTS desk_payments_txid ON desk_payments (txid);
CREATE INDEX IF NOT EXISTS desk_payments_returning ON desk_payments (created_at) WHERE status = 'returning';

-- Down Migration
DROP TABLE IF EXISTS desk_payments;
