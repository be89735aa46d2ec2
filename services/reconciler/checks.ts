/**
 * The reconciler's checks, in the order they run. A new check is one line here: a function of these
 * dependencies returning a ReconcileCheck (see check.ts).
 */
import { poolSigners } from '../chain/pool-keys';
import { ChainReader } from '../chain/reads';
import type { Config } from '../platform/config';
import type { Pool } from '../platform/db/pool';
import { depositsReconcileCheck, type DepositReconcileRow } from '../deposits/reconcile';
import type { ReconcileCheck, ReconcileRow } from './check';
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
    asReconcileCheck(depositsReconcileCheck({ cfg: deps.cfg, pool: deps.pool, reader: deps.reader }), depositRow),
  ];
}

/** A deposit discrepancy as a reconcile row: a receipt never credited is money on chain we do not show. */
function depositRow(row: DepositReconcileRow): ReconcileRow {
  const amount = BigInt(row.amount);
  const onChain = row.status === 'not_credited' ? amount : 0n;
  const expected = row.status === 'not_credited' ? 0n : amount;
  return {
    subject: { address: row.address, txid: row.txid, asset: row.asset, status: row.status },
    onChain, expected, difference: onChain - expected, inFlight: false, note: `${row.kind} at block ${row.block_number}`,
  };
}

function asReconcileCheck<Row>(check: { name: string; run(): Promise<Row[]> }, toRow: (row: Row) => ReconcileRow): ReconcileCheck {
  return { name: check.name, run: async () => (await check.run()).map(toRow) };
}
