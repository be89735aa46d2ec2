-- Up Migration

-- The W3C trace context (traceparent, tracestate) of the request that created the order, written once by the
-- processor when the order is created from a traced command: the delivery roles' spans (broadcaster,
-- confirmer) continue that trace. NULL when the command carried none (tracing off, or an order made by a role).
ALTER TABLE orders ADD COLUMN IF NOT EXISTS trace_context jsonb;
