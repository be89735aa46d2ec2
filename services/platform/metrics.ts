/** Prometheus metrics, one registry per process. */
import client from 'prom-client';

export const metricsRegistry = new client.Registry();
// The loop-lag histogram samples every 100 ms, not prom-client's 10: each sample is a timer wake-up, and at
// 10 ms they cost an idle process 0.7 % of a core (bench/README.md, "Idle CPU"). Its nodejs_eventloop_lag_*
// quantiles then include the 100 ms interval; nodejs_eventloop_lag_seconds (measured at the scrape) does not.
client.collectDefaultMetrics({ register: metricsRegistry, eventLoopMonitoringPrecision: 100 });

export const commandsApplied = new client.Counter({
  name: 'processor_commands_applied_total',
  help: 'Commands the ledger processor committed, per partition.',
  labelNames: ['partition'],
  registers: [metricsRegistry],
});

export const outboxPublished = new client.Counter({
  name: 'relay_messages_published_total',
  help: 'Outbox rows the relay published to Kafka.',
  registers: [metricsRegistry],
});

export const httpRequests = new client.Counter({
  name: 'http_requests_total',
  help: 'HTTP answers by route and status.',
  labelNames: ['method', 'route', 'status'],
  registers: [metricsRegistry],
});

/** Filled at scrape time by whoever can read the log's end offsets and the stored positions. */
export function registerLagGauge(collect: () => Promise<Array<{ topic: string; partition: number; lag: bigint }>>): void {
  new client.Gauge({
    name: 'consumer_lag_records',
    help: 'Records on the log not yet applied by the ledger processor, per partition.',
    labelNames: ['topic', 'partition'],
    registers: [metricsRegistry],
    aggregator: 'first',
    async collect() {
      this.reset();
      for (const row of await collect()) this.set({ topic: row.topic, partition: String(row.partition) }, Number(row.lag));
    },
  });
}

/** Reconciler: chain minus records per differing row (only rows that differ are set; reset every pass). */
export const reconcileDifference = new client.Gauge({
  name: 'reconcile_difference',
  help: 'On chain minus expected (base units), per reconcile check and subject, for rows that differ.',
  labelNames: ['check', 'subject', 'in_flight'],
  registers: [metricsRegistry],
});

export const reconcileDiffering = new client.Gauge({
  name: 'reconcile_differing_rows',
  help: 'Rows whose difference no transaction in flight explains, per reconcile check.',
  labelNames: ['check'],
  registers: [metricsRegistry],
});

export const reconcilePassSeconds = new client.Gauge({
  name: 'reconcile_pass_seconds',
  help: 'Duration of the last pass of each reconcile check.',
  labelNames: ['check'],
  registers: [metricsRegistry],
});

/** RED for HTTP: every answer's duration by route and status (the request's whole time in this process). */
export const httpDuration = new client.Histogram({
  name: 'http_request_duration_seconds',
  help: 'HTTP answer durations by method, route and status.',
  labelNames: ['method', 'route', 'status'],
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [metricsRegistry],
});

/** Events the relay published, by destination topic and event type (order.* types: orders by transition). */
export const eventsPublished = new client.Counter({
  name: 'relay_events_published_total',
  help: 'Outbox rows published, by destination and event type (order events: orders by transition).',
  labelNames: ['destination', 'type'],
  registers: [metricsRegistry],
});

/**
 * Delivery latency: an order's creation to its arrival in `active` (both the processor's clock), observed by
 * the relay as it publishes the order.active event. A relay that crashes between the send and marking the
 * rows published sends them again and observes them again: a rare extra sample, never a missing one.
 */
export const orderDeliverySeconds = new client.Histogram({
  name: 'order_delivery_seconds',
  help: 'Orders from created to active (the order.active event published), in seconds.',
  buckets: [0.5, 1, 2, 3, 5, 10, 20, 30, 60, 90, 180, 600],
  registers: [metricsRegistry],
});

/** Chain node calls (reads, broadcasts) by method, with their latency and failures. */
export const chainCalls = new client.Histogram({
  name: 'chain_call_duration_seconds',
  help: 'Chain node HTTP calls by method and outcome (ok, error).',
  labelNames: ['method', 'outcome'],
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [metricsRegistry],
});

export const webhookAttempts = new client.Counter({
  name: 'webhook_attempts_total',
  help: 'Webhook delivery attempts by outcome (delivered, failed, dead).',
  labelNames: ['outcome'],
  registers: [metricsRegistry],
});

export const webhookAttemptSeconds = new client.Histogram({
  name: 'webhook_attempt_duration_seconds',
  help: 'Duration of one webhook delivery attempt (send to answer), by outcome.',
  labelNames: ['outcome'],
  buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [metricsRegistry],
});

export const budgetRefusals = new client.Counter({
  name: 'budget_refusals_total',
  help: 'Requests refused 429 1020 by a budget, per budget.',
  labelNames: ['budget'],
  registers: [metricsRegistry],
});

export const depositBlockLag = new client.Gauge({
  name: 'deposit_watcher_block_lag',
  help: 'Blocks between the chain head and the deposit watcher\'s scanned position.',
  registers: [metricsRegistry],
});

/**
 * A gauge filled at scrape time from state every process sees the same (the database, the chain): across
 * cluster workers it is taken once (`first`), not summed. Registered again, it replaces the earlier one.
 */
export function sharedStateGauge(name: string, help: string, labelNames: string[], fill: (g: client.Gauge) => Promise<void>): void {
  metricsRegistry.removeSingleMetric(name);
  new client.Gauge({
    name, help, labelNames, registers: [metricsRegistry], aggregator: 'first',
    async collect() {
      this.reset();
      await fill(this).catch(() => undefined);
    },
  });
}

/** Error answers whose code the operation does not declare in the API document (services/api/declared-errors.ts): should stay 0. */
export const undeclaredErrors = new client.Counter({
  name: 'api_undeclared_errors_total',
  help: 'Error answers with a code the operation does not declare in the API document, by operation and slug',
  labelNames: ['operation', 'slug'],
  registers: [metricsRegistry],
});

export const admissionShed = new client.Counter({
  name: 'api_admission_shed_total',
  help: 'Requests answered 503 at the edge because the process was at capacity, by reason',
  labelNames: ['reason'],
  registers: [metricsRegistry],
});
