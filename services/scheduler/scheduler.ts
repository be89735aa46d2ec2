/**
 * The scheduler role. At `expires_at` (on the injected clock), or early when a reclaim was asked, it
 * signs the undelegation of every landed delegation of the order once (through its supplier), stores it
 * with `order.close` (step `signed`), and broadcasts the stored bytes until the confirmer sees them land
 * and finishes the order as expired or reclaimed.
 */
import { poolSigners } from '../chain/pool-keys';
import { ChainWriter } from '../chain/writes';
import type { Command } from '../domain/commands';
import { derivedId } from '../domain/ids';
import { suppliersFor, type Suppliers } from '../broadcaster/suppliers';
import { PollingRole, Rebroadcaster, signedOnce, txLifetimeMs, workList, type ChainRoleDeps } from '../broadcaster/work';

export interface SchedulerDeps extends ChainRoleDeps {
  writer?: ChainWriter;
  suppliers?: Suppliers;
}

export class Scheduler {
  private readonly writer: ChainWriter;
  private readonly suppliers: Suppliers;
  private readonly sender: Rebroadcaster;

  constructor(private readonly deps: SchedulerDeps) {
    this.writer = deps.writer ?? ChainWriter.fromConfig(deps.cfg);
    this.suppliers = deps.suppliers ?? suppliersFor(this.writer, poolSigners(deps.cfg), deps.cfg.ORDER_MAX_DELEGATION_SUN ?? null);
    this.sender = new Rebroadcaster(this.writer);
  }

  async tick(): Promise<void> {
    await this.sign();
    const closing = await workList(this.deps.pool, 'closing', this.deps.clock.now());
    await this.sender.send(closing.flatMap((o) => o.undelegations));
  }

  private async sign(): Promise<void> {
    const { pool, clock, cfg } = this.deps;
    const due = await workList(pool, 'due-close', clock.now(), 200);
    if (due.length === 0) return;
    const ref = await this.writer.refBlock(txLifetimeMs(cfg, clock));
    const commands: Command[] = [];
    for (const order of due) {
      const command = await signedOnce(pool, order.id, 'close', async () => {
        const txs = await this.suppliers[order.supplier].release(order, ref);
        if (txs.length === 0) return null;
        return {
          type: 'order.close', commandId: derivedId('command', 'order-close-signed', order.id), accountId: order.accountId,
          issuedAt: clock.now(), deadlineAt: null, replyTo: null,
          orderId: order.id, step: 'signed', reason: order.closeReason ?? 'expired', txs, idempotencyKey: null, at: clock.now(),
        };
      });
      if (command) commands.push(command);
    }
    if (commands.length > 0) await this.deps.bus.append(commands);
  }
}

export async function startScheduler(deps: SchedulerDeps): Promise<PollingRole> {
  const s = new Scheduler(deps);
  return new PollingRole('scheduler', deps.cfg.CHAIN_POLL_MS, () => s.tick()).start();
}
