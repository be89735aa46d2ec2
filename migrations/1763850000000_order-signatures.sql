-- Up Migration

-- Chain roles (broadcaster, scheduler): the signed transaction set of an order, stored here before the
-- command that carries it is appended, so an order is signed once for its allocation and once for its
-- close, whatever crashes in between (a restart re-appends the stored command with the same command id).
-- Not derived from the log (the log holds the commands): listed in notReplayedTables.
CREATE TABLE order_signatures (
  order_id   text NOT NULL,
  purpose    text NOT NULL CHECK (purpose IN ('allocate', 'close')),
  command    text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (order_id, purpose)
);

-- Down Migration
DROP TABLE order_signatures;
