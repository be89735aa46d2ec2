/**
 * One scrape, the whole process tree. With API_WORKERS > 1 the API's answers come from several worker
 * processes and the other roles run in the primary: a scrape reaching one worker saw only that worker's
 * counters (consecutive scrapes went up and down, read by Prometheus as resets) and none of the primary's.
 * Here a worker asked for /metrics asks the primary, which gathers every worker's registry and its own and
 * aggregates them (prom-client's AggregatorRegistry.aggregate: counters and histograms summed; gauges per
 * their `aggregator`, deployment-wide ones read from shared state set to `first`, not summed).
 */
import cluster, { type Worker } from 'node:cluster';
import { AggregatorRegistry } from 'prom-client';
import { metricsRegistry } from './metrics';

type MetricJson = Awaited<ReturnType<typeof metricsRegistry.getMetricsAsJSON>>;

const ASK = 'energy:metrics:ask';
const COLLECT = 'energy:metrics:collect';
const COLLECTED = 'energy:metrics:collected';
const ANSWER = 'energy:metrics:answer';
/** A worker that does not answer in time is left out of that scrape (it is starting, or dying). */
const WORKER_WAIT_MS = 3_000;

interface Message {
  type?: string;
  id?: number;
  metrics?: MetricJson;
  text?: string;
  error?: string;
}

let sequence = 0;

/** In a worker: answers the primary's collection requests, and asks it for the aggregate. */
function workerSide(): void {
  process.on('message', (msg: Message) => {
    if (msg?.type !== COLLECT) return;
    metricsRegistry.getMetricsAsJSON().then(
      (metrics) => process.send?.({ type: COLLECTED, id: msg.id, metrics }),
      (err: Error) => process.send?.({ type: COLLECTED, id: msg.id, metrics: [], error: err.message }),
    );
  });
}

async function collectFrom(worker: Worker, id: number): Promise<MetricJson> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => (worker.off('message', onMessage), resolve([])), WORKER_WAIT_MS);
    const onMessage = (msg: Message) => {
      if (msg?.type !== COLLECTED || msg.id !== id) return;
      clearTimeout(timer);
      worker.off('message', onMessage);
      resolve(msg.metrics ?? []);
    };
    worker.on('message', onMessage);
    try {
      worker.send({ type: COLLECT, id });
    } catch {
      clearTimeout(timer);
      resolve([]);
    }
  });
}

/** In the primary: every live worker's metrics and its own, aggregated, as exposition text. */
export async function aggregatedMetrics(): Promise<string> {
  const id = ++sequence;
  const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined && w.isConnected());
  const all = await Promise.all([metricsRegistry.getMetricsAsJSON(), ...workers.map((w) => collectFrom(w, id))]);
  return AggregatorRegistry.aggregate(all.filter((m) => m.length > 0)).metrics();
}

/** The primary answers its workers' requests for the aggregate (call once, before forking). */
export function serveClusterMetrics(): void {
  cluster.on('message', (worker, msg: Message) => {
    if (msg?.type !== ASK) return;
    aggregatedMetrics().then(
      (text) => worker.send({ type: ANSWER, id: msg.id, text }),
      (err: Error) => worker.send({ type: ANSWER, id: msg.id, error: err.message }),
    );
  });
}

const waiting = new Map<number, { resolve: (text: string) => void; reject: (err: Error) => void }>();

/** What /metrics answers: in a cluster worker the aggregate from the primary, else this process's registry. */
export async function scrape(): Promise<string> {
  if (!cluster.isWorker || !process.send) return metricsRegistry.metrics();
  const id = ++sequence;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => (waiting.delete(id), reject(new Error('the primary did not answer the metrics request'))), WORKER_WAIT_MS * 2);
    waiting.set(id, { resolve: (t) => (clearTimeout(timer), resolve(t)), reject: (e) => (clearTimeout(timer), reject(e)) });
    process.send!({ type: ASK, id });
  });
}

if (cluster.isWorker) {
  workerSide();
  process.on('message', (msg: Message) => {
    if (msg?.type !== ANSWER || msg.id === undefined) return;
    const w = waiting.get(msg.id);
    if (!w) return;
    waiting.delete(msg.id);
    if (msg.error !== undefined) w.reject(new Error(msg.error));
    else w.resolve(msg.text ?? '');
  });
}
