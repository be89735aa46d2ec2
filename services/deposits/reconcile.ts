/**
 * Deposits reconcile: every receipt of a deposit address (current or retired) on chain over a block range
 * (TRX transfers, TRX sent by contracts, USDT Transfer logs whatever the call path; receipts.ts) must be a
 * deposit row, credited or held; every deposit row of that range must be a receipt on chain. A row of the
 * result is one discrepancy: `not_credited` (the money arrived and the balance never moved) or
 * `no_receipt_on_chain` (credited or held from something the chain does not show). No rows: clean.
 *
 * The range ends where the watcher stands (receipts above it are not due yet) and reaches `windowBlocks`
 * back, before the watcher's start block too. A deposit whose command is on the log but not yet applied
 * shows as not_credited for that moment: a second run tells.
 */
import type { Pool } from '../platform/db/pool';
import type { Config } from '../platform/config';
import { ChainReader, MAX_BLOCK_RANGE } from '../chain/reads';
import { ChainUnavailable } from '../chain/errors';
import type { DepositAsset } from '../domain/deposits';
import { readReceipts } from './read-receipts';
import type { Receipt } from './receipts';
import { loadWatcherPosition } from '../platform/db/watcher-position';
import { WATCHER_NAME } from './watcher';

export type DepositDiscrepancy = 'not_credited' | 'no_receipt_on_chain';

/** One line of the ops table. `amount` is in base units (SUN for TRX, 6-decimal units for USDT). */
export interface DepositReconcileRow {
  address: string;
  txid: string;
  asset: DepositAsset;
  amount: string;
  status: DepositDiscrepancy;
  deposit_id: string;
  block_number: number;
  /** transfer, internal (TRX a contract sent), log (USDT Transfer), or the stored status for no_receipt_on_chain. */
  kind: string;
}

/** The shape the reconciler's checks share. */
export interface ReconcileCheck<Row> {
  name: string;
  run(): Promise<Row[]>;
}

export interface DepositReconcileDeps {
  cfg: Pick<Config, 'TRON_FULL_HOST' | 'USDT_CONTRACT' | 'DEPOSIT_CONFIRMATIONS' | 'DEPOSIT_SCAN_FROM_BLOCK'>;
  pool: Pool;
  reader?: ChainReader;
}

export interface DepositReconcileRange {
  /** Default: toBlock − windowBlocks + 1 (at least 1). */
  fromBlock?: number;
  /** Default: the last block the watcher scanned (or the last confirmed solidified one if it never ran). */
  toBlock?: number;
  /** Default 1,200 blocks (an hour of 3 s blocks). */
  windowBlocks?: number;
}

export const DEFAULT_WINDOW_BLOCKS = 1_200;

export interface DepositReconcileResult {
  fromBlock: number;
  toBlock: number;
  receipts: number;
  rows: DepositReconcileRow[];
}

/** Every deposit address ever handed out, current or retired. */
async function depositAddresses(pool: Pool): Promise<Set<string>> {
  const { rows } = await pool.query(
    `SELECT deposit_address AS address FROM accounts WHERE deposit_address IS NOT NULL
     UNION SELECT r->>'address' FROM accounts, jsonb_array_elements(coalesce(retired_deposit_addresses, '[]'::jsonb)) AS r`,
  );
  return new Set(rows.map((r) => r.address as string));
}

async function defaultEnd(deps: DepositReconcileDeps, reader: ChainReader): Promise<number> {
  const position = await loadWatcherPosition(deps.pool, WATCHER_NAME, -1);
  if (position >= 0) return position - 1;
  const [head, solid] = await Promise.all([reader.nowBlock('full'), reader.solidifiedBlockNumber()]);
  return Math.min(solid, head.number - deps.cfg.DEPOSIT_CONFIRMATIONS + 1);
}

async function chainReceipts(reader: ChainReader, from: number, to: number, usdt: string | null): Promise<Receipt[]> {
  const out: Receipt[] = [];
  for (let start = from; start <= to; start += MAX_BLOCK_RANGE) {
    const end = Math.min(to + 1, start + MAX_BLOCK_RANGE);
    const blocks = await reader.blockRange(start, end, 'solid');
    if (blocks.length !== end - start) throw new ChainUnavailable(`blocks ${start}..${end - 1} came back incomplete`);
    out.push(...(await readReceipts(reader, blocks, usdt)));
  }
  return out;
}

export async function reconcileDeposits(deps: DepositReconcileDeps, range: DepositReconcileRange = {}): Promise<DepositReconcileResult> {
  const reader = deps.reader ?? ChainReader.fromConfig(deps.cfg);
  const toBlock = range.toBlock ?? (await defaultEnd(deps, reader));
  const fromBlock = Math.max(1, range.fromBlock ?? toBlock - (range.windowBlocks ?? DEFAULT_WINDOW_BLOCKS) + 1);
  if (toBlock < fromBlock) return { fromBlock, toBlock, receipts: 0, rows: [] };

  const addresses = await depositAddresses(deps.pool);
  const receipts = (await chainReceipts(reader, fromBlock, toBlock, deps.cfg.USDT_CONTRACT ?? null)).filter((r) => addresses.has(r.address));
  const { rows: stored } = await deps.pool.query(
    'SELECT deposit_id, address, txid, asset, amount, status, block_number FROM deposits WHERE block_number BETWEEN $1 AND $2',
    [fromBlock, toBlock],
  );
  const storedIds = new Set(stored.map((d) => d.deposit_id as string));
  const receiptIds = new Set(receipts.map((r) => r.depositId));

  const rows: DepositReconcileRow[] = receipts.filter((r) => !storedIds.has(r.depositId)).map((r) => ({
    address: r.address, txid: r.txid, asset: r.asset, amount: r.amount.toString(), status: 'not_credited',
    deposit_id: r.depositId, block_number: r.blockNumber, kind: r.kind,
  }));
  for (const d of stored) {
    if (receiptIds.has(d.deposit_id)) continue;
    rows.push({
      address: d.address, txid: d.txid, asset: d.asset, amount: String(d.amount), status: 'no_receipt_on_chain',
      deposit_id: d.deposit_id, block_number: Number(d.block_number), kind: d.status,
    });
  }
  rows.sort((a, b) => a.block_number - b.block_number || a.deposit_id.localeCompare(b.deposit_id));
  return { fromBlock, toBlock, receipts: receipts.length, rows };
}

/** The deposits check for the reconciler (`./bin/ops reconcile`): one row per discrepancy. */
export function depositsReconcileCheck(deps: DepositReconcileDeps, range: DepositReconcileRange = {}): ReconcileCheck<DepositReconcileRow> {
  return { name: 'deposits', run: async () => (await reconcileDeposits(deps, range)).rows };
}
