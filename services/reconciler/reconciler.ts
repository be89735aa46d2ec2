/**
 * The reconciler role: every RECONCILE_EVERY_MS it runs the checks (checks.ts), exposes each differing
 * row as a Prometheus gauge, and raises an operator alert (error log) for a row that has differed for
 * longer than the in-flight window (ORDER_WAIT_WINDOW_MS): longer than any transaction may take to land.
 */
import { ChainReader } from '../chain/reads';
import type { Clock } from '../platform/clock';
import type { Config } from '../platform/config';
import type { Pool } from '../platform/db/pool';
import { logger } from '../platform/logger';
import { reconcileDifference, reconcileDiffering, reconcilePassSeconds } from '../platform/metrics';
import { PollingRole } from '../platform/polling-role';
import { isFinding, rowKey, runChecks, type CheckResult, type ReconcileCheck } from './check';
import { reconcileChecks } from './checks';

export interface ReconcilerDeps {
  cfg: Config;
  pool: Pool;
  clock: Clock;
  reader?: ChainReader;
  checks?: ReconcileCheck[];
}

export class Reconciler {
  private readonly checks: ReconcileCheck[];
  /** Clock ms each currently differing row was first seen differing; rows that agree again are dropped. */
  private readonly since = new Map<string, number>();
  private readonly alerted = new Set<string>();

  constructor(private readonly deps: ReconcilerDeps) {
    this.checks = deps.checks ?? reconcileChecks({ cfg: deps.cfg, pool: deps.pool, reader: deps.reader ?? ChainReader.fromConfig(deps.cfg) });
  }

  async tick(): Promise<CheckResult[]> {
    const results = await runChecks(this.checks);
    const now = this.deps.clock.now();
    const differing = new Set<string>();
    reconcileDifference.reset();
    for (const result of results) {
      reconcilePassSeconds.set({ check: result.check }, result.ms / 1000);
      reconcileDiffering.set({ check: result.check }, result.rows.filter(isFinding).length);
      for (const row of result.rows) {
        if (row.difference === 0n) continue;
        const key = rowKey(result.check, row);
        differing.add(key);
        reconcileDifference.set({ check: result.check, subject: Object.values(row.subject).join(':'), in_flight: String(row.inFlight) }, Number(row.difference));
        const since = this.since.get(key) ?? now;
        this.since.set(key, since);
        if (now - since >= this.deps.cfg.ORDER_WAIT_WINDOW_MS && !this.alerted.has(key)) {
          this.alerted.add(key);
          logger.error(
            { alert: 'reconcile_difference', check: result.check, ...row.subject, onChain: String(row.onChain), expected: String(row.expected), difference: String(row.difference), note: row.note, sinceMs: now - since },
            'reconcile: chain and records differ beyond the in-flight window',
          );
        }
      }
    }
    for (const key of this.since.keys()) {
      if (differing.has(key)) continue;
      this.since.delete(key);
      this.alerted.delete(key);
    }
    return results;
  }
}

export async function startReconciler(deps: ReconcilerDeps): Promise<PollingRole> {
  const r = new Reconciler(deps);
  return new PollingRole('reconciler', deps.cfg.RECONCILE_EVERY_MS, async () => void (await r.tick())).start();
}
