/**
 * The deposit watcher role: follows the solidified chain block by block through the chain adapter and
 * appends a `deposit.credit` command for every receipt of a deposit address (current or retired): a TRX
 * transfer, TRX a contract sent (internal transaction), a USDT Transfer log whatever contract was called
 * (receipts.ts), once its block has `DEPOSIT_CONFIRMATIONS` confirmations. Command ids derive from
 * (txid, log index / internal transaction index), so re-reading blocks (a restart, a re-scan from zero) credits nothing twice. Its
 * position (next block to scan) is stored after the block's commands are appended, and it resumes there.
 * Pending-rate deposits are released (`deposit.release`, reason `rate`) once a rate is available.
 */
import { PollingRole } from '../platform/polling-role';
import type { Command } from '../domain/commands';
import { derivedId } from '../domain/ids';
import { ChainUnavailable } from '../chain/errors';
import { ChainReader, MAX_BLOCK_RANGE, type Block } from '../chain/reads';
import type { CommandBus } from '../platform/command-bus';
import type { Clock } from '../platform/clock';
import type { Config } from '../platform/config';
import type { Pool } from '../platform/db/pool';
import { loadWatcherPosition, saveWatcherPosition } from '../platform/db/watcher-position';
import { crashPoint } from '../platform/chaos';
import { logger } from '../platform/logger';
import { UsdtRateSource, type UsdtRate } from './rate';
import { withinBand } from '../domain/deposit-rate';
import { sunPerUsdtFromDecimal, type DepositFacts } from '../domain/deposits';
import { readReceipts } from './read-receipts';
import { depositBlockLag } from '../platform/metrics';
import { DeskPayments } from '../desk/payments';

export const WATCHER_NAME = 'deposit-watcher';

export interface WatcherDeps {
  cfg: Config;
  pool: Pool;
  bus: Pick<CommandBus, 'append'>;
  clock: Clock;
  reader?: ChainReader;
  rate?: UsdtRateSource;
  /** Called after each scanned range (tests, bench). */
  onScanned?: (nextBlock: number, appended: number) => void;
}

interface Seen extends DepositFacts {
  accountId: string;
}

/** Accounts owning these addresses, current or retired: address → account id. */
async function ownersOf(pool: Pool, addresses: string[]): Promise<Map<string, string>> {
  if (addresses.length === 0) return new Map();
  const { rows } = await pool.query(
    `SELECT id, deposit_address, retired_deposit_addresses FROM accounts
     WHERE deposit_address = ANY($1::text[])
        OR retired_deposit_addresses @> ANY(SELECT jsonb_build_array(jsonb_build_object('address', a)) FROM unnest($1::text[]) AS a)`,
    [addresses],
  );
  const owners = new Map<string, string>();
  const wanted = new Set(addresses);
  for (const r of rows) {
    if (wanted.has(r.deposit_address)) owners.set(r.deposit_address, r.id);
    for (const retired of r.retired_deposit_addresses ?? []) if (wanted.has(retired.address)) owners.set(retired.address, r.id);
  }
  return owners;
}

export class DepositWatcher {
  private readonly reader: ChainReader;
  private readonly rate: UsdtRateSource;
  private readonly referenceSun: bigint | null;
  private readonly desk: DeskPayments;
  private stopped = false;
  private loop: PollingRole | undefined;

  constructor(private readonly deps: WatcherDeps) {
    this.reader = deps.reader ?? ChainReader.fromConfig(deps.cfg);
    // The watcher prices at credit time: a short cache, not rate_now's 60 s.
    this.rate = deps.rate ?? new UsdtRateSource(deps.cfg, this.reader, deps.clock, 1_000, deps.cfg.USDT_TWAP_BLOCKS);
    this.referenceSun = deps.cfg.USDT_REFERENCE_RATE ? sunPerUsdtFromDecimal(deps.cfg.USDT_REFERENCE_RATE) : null;
    this.desk = new DeskPayments(deps.cfg, this.reader, deps.clock);
  }

  start(): void {
    this.loop = new PollingRole('deposit watcher', this.deps.cfg.DEPOSIT_POLL_MS, () => this.tick()).start();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop?.stop();
  }

  /** One pass: scan every confirmed solidified block from the stored position, then release pending rates. */
  async tick(): Promise<void> {
    const { cfg, pool } = this.deps;
    // A time-weighted rate needs the pool price of every block, deposits or not: one sample per pass.
    if (cfg.USDT_RATE_SOURCE === 'dex_v3' && cfg.USDT_TWAP_BLOCKS > 1) await this.rate.current();
    let next = await loadWatcherPosition(pool, WATCHER_NAME, cfg.DEPOSIT_SCAN_FROM_BLOCK);
    const head = await this.reader.nowBlock('full');
    const solid = await this.reader.solidifiedBlockNumber();
    const target = Math.min(solid, head.number - cfg.DEPOSIT_CONFIRMATIONS + 1);
    while (next <= target && !this.stopped) {
      const end = Math.min(target + 1, next + MAX_BLOCK_RANGE);
      const blocks = await this.reader.blockRange(next, end, 'solid');
      if (blocks.length !== end - next || blocks.some((b, i) => b.number !== next + i)) {
        throw new ChainUnavailable(`blocks ${next}..${end - 1} came back incomplete`);
      }
      const appended = await this.scan(blocks);
      // Killed here, the commands are on the log but the position is not moved: the next start re-reads
      // these blocks and appends the same command ids, which the processor applies once.
      crashPoint('deposit-watcher.after-append');
      next = end;
      await saveWatcherPosition(pool, WATCHER_NAME, next);
      this.deps.onScanned?.(next, appended);
    }
    depositBlockLag.set(Math.max(0, head.number - next));
    await this.releasePendingRates();
  }

  /** Appends the deposit commands of these blocks; returns how many. */
  private async scan(blocks: Block[]): Promise<number> {
    const confirmationsRequired = this.deps.cfg.DEPOSIT_CONFIRMATIONS;
    const receipts = await readReceipts(this.reader, blocks, this.deps.cfg.USDT_CONTRACT ?? null);
    // Payments to the transfer desk take the desk's path (services/desk/payments.ts), never a deposit credit.
    const desk = await this.desk.commands(this.desk.mine(receipts), confirmationsRequired);
    const seen: Omit<Seen, 'accountId'>[] = receipts.map(({ kind: _kind, memo: _memo, ...r }) => ({ ...r, confirmationsRequired }));
    const owners = seen.length === 0 ? new Map<string, string>() : await ownersOf(this.deps.pool, [...new Set(seen.map((s) => s.address))]);
    const mine = seen.filter((s) => owners.has(s.address));
    const rate = mine.some((s) => s.asset === 'USDT') ? await this.rate.current() : null;
    const commands = [...desk, ...mine.map((s) => this.creditCommand({ ...s, accountId: owners.get(s.address) as string }, rate))];
    if (commands.length === 0) return 0;
    await this.deps.bus.append(commands);
    return commands.length;
  }

  private creditCommand(s: Seen, rate: UsdtRate | null): Command {
    const { cfg, clock } = this.deps;
    return {
      type: 'deposit.credit',
      commandId: derivedId('command', 'deposit', s.depositId),
      accountId: s.accountId,
      issuedAt: clock.now(),
      deadlineAt: null,
      replyTo: null,
      depositId: s.depositId, asset: s.asset, address: s.address, sender: s.sender, txid: s.txid, logIndex: s.logIndex,
      blockNumber: s.blockNumber, blockTimestamp: s.blockTimestamp, amount: s.amount, confirmationsRequired: s.confirmationsRequired,
      rateSun: s.asset === 'USDT' ? rate?.rateSun ?? null : null,
      rateSource: s.asset === 'USDT' ? rate?.source ?? null : null,
      // A rate outside the band around the reference credits nothing automatically: no amount is below the
      // auto-credit ceiling, so the deposit is held for review (decideDeposit) and support credits it.
      spreadBps: cfg.USDT_SPREAD_BPS, usdtMin: cfg.USDT_MIN, usdtMax: s.asset === 'USDT' && rate && !this.inBand(rate) ? 0n : cfg.USDT_MAX, minDepositSun: cfg.MIN_DEPOSIT_SUN,
    };
  }

  private inBand(rate: UsdtRate): boolean {
    const inBand = withinBand(rate.rateSun, this.referenceSun, this.deps.cfg.USDT_RATE_BAND_BPS);
    if (!inBand) logger.warn({ rateSun: String(rate.rateSun), source: rate.source, referenceSun: String(this.referenceSun) }, 'USDT rate outside its band: deposits held for review');
    return inBand;
  }

  /** Deposits that waited for a rate are credited once one is available (one command per deposit, ever). */
  private async releasePendingRates(): Promise<void> {
    const { rows } = await this.deps.pool.query(
      "SELECT deposit_id, account_id FROM deposits WHERE status = 'pending_rate' ORDER BY seen_at LIMIT 500",
    );
    if (rows.length === 0) return;
    const rate = await this.rate.current();
    // Out of band, pending deposits keep waiting (for the rate to return, or for support).
    if (!rate || !this.inBand(rate)) return;
    await this.deps.bus.append(rows.map((r) => ({
      type: 'deposit.release' as const,
      commandId: derivedId('command', 'deposit-rate', r.deposit_id),
      accountId: r.account_id,
      issuedAt: this.deps.clock.now(),
      deadlineAt: null,
      replyTo: null,
      depositId: r.deposit_id, reason: 'rate' as const, rateSun: rate.rateSun, rateSource: rate.source,
      spreadBps: this.deps.cfg.USDT_SPREAD_BPS, memo: null,
    })));
  }
}

export async function startDepositWatcher(deps: WatcherDeps): Promise<DepositWatcher> {
  const watcher = new DepositWatcher(deps);
  watcher.start();
  return watcher;
}
