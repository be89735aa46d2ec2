/**
 * The reconciler's checks, in the order they run. A new check is one line here: a function of these
 * dependencies returning a ReconcileCheck (see check.ts).
 */
import { poolSigners } from '../chain/pool-keys';
import { ChainReader } from '../chain/reads';
import type { Config } from '../platform/config';
import type { Pool } from '../platform/db/pool';
import type { ReconcileCheck } from './check';
import { ordersStakeCheck } from './orders-check';

export interface CheckDeps {
  cfg: Config;
  pool: Pool;
  reader: ChainReader;
}

export function reconcileChecks(deps: CheckDeps): ReconcileCheck[] {
  const poolAddresses = poolSigners(deps.cfg).map((s) => s.address);
  return [
    ordersStakeCheck({ pool: deps.pool, reader: deps.reader, poolAddresses }),
  ];
}
