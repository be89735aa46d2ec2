-- Up Migration

-- Every transaction id an order's stored signed sets carry, owned by exactly one order. The chain roles
-- write it in the same transaction as the signed set (order_signatures): a set carrying an id another
-- order already stored (the same signed bytes) is refused there, before its command is appended and so
-- before anything is broadcast. An order restating its own id (a re-signed close keeping the undelegations
-- that still may land) is not a collision. Not derived from the log: listed in notReplayedTables.
CREATE TABLE order_tx_ids (
  tx_id      text PRIMARY KEY,
  order_id   text NOT NULL,
  purpose    text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX order_tx_ids_by_order ON order_tx_ids (order_id);
-- Sets stored before this table existed: the first stored keeps an id it shares with a later one.
INSERT INTO order_tx_ids (tx_id, order_id, purpose)
  SELECT t.tx ->> 'txId', s.order_id, s.purpose
    FROM order_signatures s CROSS JOIN LATERAL jsonb_array_elements(s.command::jsonb -> 'txs') AS t(tx)
   ORDER BY s.created_at
  ON CONFLICT (tx_id) DO NOTHING;

-- Per-transaction nonce: the low bits of every signed transaction's raw_data.timestamp (see
-- services/chain/writes.ts uniqueRef), so two transactions with the same contract and reference block
-- never share their bytes. A sequence: unique across every process that signs.
CREATE SEQUENCE chain_tx_nonce;

-- One activation per receiver: the order whose signed set carries it. Claimed in the signing transaction;
-- another order's activation for the same receiver is refused while the claimant has not failed.
CREATE TABLE receiver_activations (
  receiver   text PRIMARY KEY,
  order_id   text NOT NULL,
  tx_id      text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- The confirmer's and the reconciler's per (pool address, receiver) sums read open orders by receiver.
CREATE INDEX orders_open_by_receiver ON orders (receiver) WHERE status IN ('allocating', 'delegated', 'confirmed', 'active');

-- Down Migration
DROP INDEX orders_open_by_receiver;
DROP TABLE receiver_activations;
DROP SEQUENCE chain_tx_nonce;
DROP TABLE order_tx_ids;
