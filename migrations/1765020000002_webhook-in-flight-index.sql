-- Up Migration

-- The sender's per-endpoint cap counts each endpoint's attempts in flight on every claim
-- (services/dispatcher/store.ts, inFlightOf): this finds them without walking the endpoint's delivery log.
CREATE INDEX IF NOT EXISTS webhook_deliveries_in_flight ON webhook_deliveries (endpoint_id) WHERE state = 'delivering';
