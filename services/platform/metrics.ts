/** Prometheus metrics, one registry per process. */
import client from 'prom-client';

export const metricsRegistry = new client.Registry();
client.collectDefaultMetrics({ register: metricsRegistry });

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

export const admissionShed = new client.Counter({
  name: 'api_admission_shed_total',
  help: 'Requests answered 503 at the edge because the process was at capacity, by reason',
  labelNames: ['reason'],
  registers: [metricsRegistry],
});
