-- Up Migration

-- Webhook endpoints: configuration written by the API, not derived from the log. At most one per role
-- and account; the unique constraint is checked at commit so a role swap can move both rows at once.
CREATE TABLE webhook_endpoints (
  id                   text PRIMARY KEY,
  account_id           text NOT NULL,
  url                  text NOT NULL,
  role                 text NOT NULL CHECK (role IN ('primary', 'backup')),
  events               text[],
  is_active            boolean NOT NULL DEFAULT true,
  -- AES-256-GCM under WEBHOOK_SECRET_KEY, bound to the endpoint id (services/webhooks/secrets.ts).
  secret_sealed        text NOT NULL,
  last_delivery_at     timestamptz,
  last_delivery_status integer,
  created_at           timestamptz NOT NULL,
  updated_at           timestamptz NOT NULL,
  CONSTRAINT webhook_endpoints_one_per_role UNIQUE (account_id, role) DEFERRABLE INITIALLY DEFERRED
);

-- One delivery per event (to the account's subscribed endpoint; it moves to the backup on failover),
-- written by the dispatcher's intake in the same transaction as its stored offset. Times are on the
-- service clock, so a scaled test clock runs the whole retry schedule.
CREATE TABLE webhook_deliveries (
  id                 text PRIMARY KEY,
  event_id           text NOT NULL UNIQUE,
  event_type         text NOT NULL,
  account_id         text NOT NULL,
  -- Where it goes now; deleting the endpoint drops its undelivered events (and its log).
  endpoint_id        text NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  -- Where it started, so the delivery stays in that endpoint's log after a failover.
  origin_endpoint_id text REFERENCES webhook_endpoints (id) ON DELETE SET NULL,
  failed_over        boolean NOT NULL DEFAULT false,
  -- Events of one stream (an order, else the account) are delivered in log order (seq).
  stream_key         text NOT NULL,
  seq                bigint NOT NULL,
  body               bytea NOT NULL,
  max_attempts       smallint NOT NULL,
  target_attempt     smallint NOT NULL DEFAULT 0,
  attempt            integer NOT NULL DEFAULT 0,
  state              text NOT NULL CHECK (state IN ('pending', 'delivering', 'delivered', 'failed', 'dead')),
  response_status    integer,
  error              text,
  next_attempt_at    timestamptz,
  delivered_at       timestamptz,
  -- The sender that claimed it, until when (database time): a crashed sender's claim lapses.
  claim_token        text,
  lease_until        timestamptz,
  event_created_at   timestamptz NOT NULL,
  created_at         timestamptz NOT NULL,
  updated_at         timestamptz NOT NULL
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE state IN ('pending', 'failed');
CREATE INDEX webhook_deliveries_claimed ON webhook_deliveries (lease_until) WHERE state = 'delivering';
CREATE INDEX webhook_deliveries_open_streams ON webhook_deliveries (account_id, stream_key, seq) WHERE state NOT IN ('delivered', 'dead');
CREATE INDEX webhook_deliveries_log ON webhook_deliveries (endpoint_id, created_at DESC, id DESC);
CREATE INDEX webhook_deliveries_log_origin ON webhook_deliveries (origin_endpoint_id, created_at DESC, id DESC);

-- Down Migration
DROP TABLE webhook_deliveries, webhook_endpoints;
