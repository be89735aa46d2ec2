/**
 * The promo forward watcher role: any amount of the promo token sent to `forward_address` by a wallet
 * that received it from the drop is a claim for that wallet (method `forward`). Follows solidified blocks;
 * the claim's command id derives from the forwarding transaction, so re-reading blocks (a restart before
 * the position was saved) appends the same command and the processor applies it once; a second forward
 * by the same wallet is refused there (3039) and records nothing.
 */
import type { Command } from '../domain/commands';
import { PROMO_KEY } from '../domain/commands';
import { derivedId } from '../domain/ids';
import { MAX_BLOCK_RANGE } from '../chain/reads';
import { Trc10Reader } from '../chain/trc10';
import type { Clock } from '../platform/clock';
import type { CommandBus } from '../platform/command-bus';
import type { Config } from '../platform/config';
import type { Pool } from '../platform/db/pool';
import { loadWatcherPosition, saveWatcherPosition } from '../platform/db/watcher-position';
import { PollingRole } from '../platform/polling-role';
import { DropLog } from './drop-log';
import { loadPromoConfig } from './store';

/** Its row in deposit_watcher_position (a table of chain watchers' positions, not derived from the log). */
const WATCHER = 'promo-forward';

export interface ForwardWatcherDeps {
  cfg: Config;
  pool: Pool;
  bus: CommandBus;
  clock: Clock;
  chain?: Trc10Reader;
}

export class ForwardWatcher {
  private readonly chain: Trc10Reader;
  private readonly drops: DropLog;

  constructor(private readonly deps: ForwardWatcherDeps) {
    this.chain = deps.chain ?? Trc10Reader.fromConfig(deps.cfg);
    this.drops = new DropLog(this.chain, deps.cfg.PROMO_DROP_FROM_BLOCK);
  }

  async tick(): Promise<void> {
    const { pool, bus, clock, cfg } = this.deps;
    const config = await loadPromoConfig(pool);
    if (!config || !config.on || !config.forwardAddress) return;
    const head = await this.chain.solidHead();
    let next = await loadWatcherPosition(pool, WATCHER, cfg.PROMO_DROP_FROM_BLOCK);
    while (next <= head) {
      const end = Math.min(head + 1, next + MAX_BLOCK_RANGE);
      const commands: Command[] = [];
      for (const t of await this.chain.transfers(next, end)) {
        if (t.tokenId !== config.tokenId || t.to !== config.forwardAddress || t.from === config.dropAddress) continue;
        if (!(await this.drops.received(config.tokenId, config.dropAddress, t.from))) continue;
        commands.push({
          type: 'promo.redeem', commandId: derivedId('command', 'promo-forward', t.txid), accountId: PROMO_KEY,
          issuedAt: clock.now(), deadlineAt: null, replyTo: null, address: t.from, method: 'forward', forwardTxId: t.txid,
        });
      }
      // Killed between these two lines, the next start re-reads these blocks: the same command ids.
      if (commands.length) await bus.append(commands);
      await saveWatcherPosition(pool, WATCHER, end);
      next = end;
    }
  }
}

export async function startForwardWatcher(deps: ForwardWatcherDeps): Promise<PollingRole> {
  const watcher = new ForwardWatcher(deps);
  return new PollingRole('promo-forward-watcher', deps.cfg.CHAIN_POLL_MS, () => watcher.tick()).start();
}
