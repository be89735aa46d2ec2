/**
 * One reconcile pass for `./bin/ops reconcile` and the test worlds' teardown: runs every check, prints
 * the table, repairs with `repair`, and answers whether the chain and the records agree.
 */
import type { Progress } from '../platform/progress';
import { ChainReader } from '../chain/reads';
import { ChainWriter } from '../chain/writes';
import type { CommandBus } from '../platform/command-bus';
import { stringifyJson } from '../platform/json';
import type { Runtime } from '../chain/clients';
import { SequenceNonces } from '../chain/nonces';
import { formatResults, isFinding, runChecks, type CheckResult } from './check';
import { reconcileChecks } from './checks';
import { repair, type RepairAction } from './repair';

export interface ReconcileOutcome {
  results: CheckResult[];
  /** Rows whose difference no transaction in flight explains. */
  findings: number;
  actions: RepairAction[];
}

export async function reconcileOnce(rt: Runtime, options: { repairWith?: Pick<CommandBus, 'submit'>; meter?: Progress } = {}): Promise<ReconcileOutcome> {
  const reader = ChainReader.fromConfig(rt.cfg);
  const checks = reconcileChecks({ cfg: rt.cfg, pool: rt.pool, reader });
  let results = await runChecks(checks, options.meter);
  let actions: RepairAction[] = [];
  if (options.repairWith) {
    const orders = results.find((r) => r.check === 'orders-stake')?.rows ?? [];
    actions = await repair(
      { cfg: rt.cfg, pool: rt.pool, clock: rt.clock, bus: options.repairWith, reader, writer: ChainWriter.fromConfig(rt.cfg), nonces: new SequenceNonces(rt.pool) },
      orders,
    );
    results = await runChecks(checks, options.meter);
  }
  return { results, findings: results.reduce((n, r) => n + r.rows.filter(isFinding).length, 0), actions };
}

/** What `./bin/ops reconcile` prints. */
export function reconcileReport(outcome: ReconcileOutcome, all = false): string {
  const repairs = outcome.actions.map((a) => `repair: ${stringifyJson(a)}`);
  return [...repairs, formatResults(outcome.results, all), outcome.findings === 0 ? 'clean' : `DIFFERENT: ${outcome.findings} rows`].join('\n');
}
