/**
 * What /readyz reports beside its checks, and the same as gauges: the chain node's newest block and its
 * age, and the background roles' liveness (services/platform/liveness.ts) wherever they run. Neither
 * makes this instance unready: an API without a fresh chain still serves reads and answers orders 5003,
 * and a stalled processor is not fixed by taking the API out of the load balancer; alerts are
 * (infra/observability/alerts.yml, docs/operations.md).
 */
import type { Runtime } from '../chain/clients';
import { readLiveness } from '../platform/liveness';
import { sharedStateGauge } from '../platform/metrics';

const DETAIL_TIMEOUT_MS = 2_000;

function bounded<T>(p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('timed out')), DETAIL_TIMEOUT_MS)));
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

export interface ChainHead {
  block: number;
  age_seconds: number;
}

export async function chainHead(rt: Runtime): Promise<ChainHead> {
  const head = await bounded(rt.chain.reader.nowBlock());
  return { block: head.number, age_seconds: Math.max(0, (Date.now() - head.timestamp) / 1000) };
}

export async function readinessDetails(rt: Runtime): Promise<Record<string, unknown>> {
  const [chain, roles] = await Promise.all([
    chainHead(rt).catch((err: Error) => `down: ${err.message}`),
    bounded(readLiveness(rt.pool, rt.cfg.ROLE_STALL_MS)).then(
      (rows) => Object.fromEntries(rows.map((r) => [r.role, { state: r.stalled ? 'stalled' : 'ok', age_seconds: Math.round(r.ageSeconds * 10) / 10, instance: r.instance }])),
      (err: Error) => `down: ${err.message}`,
    ),
  ]);
  return { chain, roles };
}

export function registerHealthGauges(rt: Runtime): void {
  sharedStateGauge('chain_head_age_seconds', 'Age of the chain node\'s newest block (seconds); absent while the node does not answer.', [], async (g) => {
    g.set((await chainHead(rt)).age_seconds);
  });
  sharedStateGauge('role_progress_age_seconds', 'Seconds since each background role\'s loop last turned (its freshest instance).', ['role'], async (g) => {
    for (const r of await bounded(readLiveness(rt.pool, rt.cfg.ROLE_STALL_MS))) g.set({ role: r.role }, r.ageSeconds);
  });
}
