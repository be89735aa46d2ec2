/**
 * The scheduler role. At `expires_at` (on the injected clock), or early when a reclaim was asked, it
 * signs the undelegation of every landed delegation of the order once (through its supplier), stores it
 * with `order.close` (step `signed`), and broadcasts the stored bytes until the confirmer sees them land
 * and finishes the order as expired or reclaimed. A stored undelegation that can no longer land (the head
 * is past its expiration and it is in no block) is signed again, once per attempt, and stored the same
 * way (`order.close` step `signed` naming what it replaces); only the stored bytes are broadcast.
 */
import { poolSigners } from '../chain/pool-keys';
import { ChainReader } from '../chain/reads';
import { ChainWriter, expirationOf, type RefBlock } from '../chain/writes';
import type { Command } from '../domain/commands';
import { derivedId } from '../domain/ids';
import type { Order, Undelegation } from '../domain/orders';
import { suppliersFor, type Suppliers } from '../broadcaster/suppliers';
import { PollingRole, Rebroadcaster, signedOnce, txLifetimeMs, workList, type ChainRoleDeps } from '../broadcaster/work';

export interface SchedulerDeps extends ChainRoleDeps {
  writer?: ChainWriter;
  reader?: ChainReader;
  suppliers?: Suppliers;
}

export class Scheduler {
  private readonly writer: ChainWriter;
  private readonly reader: ChainReader;
  private readonly suppliers: Suppliers;
  private readonly sender: Rebroadcaster;
  /** Undelegations of closing orders seen in a block (head view): they need no new signature. */
  private readonly inBlock = new Set<string>();

  constructor(private readonly deps: SchedulerDeps) {
    this.writer = deps.writer ?? ChainWriter.fromConfig(deps.cfg);
    this.reader = deps.reader ?? ChainReader.fromConfig(deps.cfg);
    this.suppliers = deps.suppliers ?? suppliersFor(this.writer, poolSigners(deps.cfg), deps.cfg.ORDER_MAX_DELEGATION_SUN ?? null);
    this.sender = new Rebroadcaster(this.writer);
  }

  async tick(): Promise<void> {
    await this.sign();
    const closing = await workList(this.deps.pool, 'closing', this.deps.clock.now());
    await this.resign(closing);
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
          orderId: order.id, step: 'signed', reason: order.closeReason ?? 'expired', txs, idempotencyKey: null, at: clock.now(), replaces: [],
        };
      });
      if (command) commands.push(command);
    }
    if (commands.length > 0) await this.deps.bus.append(commands);
  }

  /** Stored undelegations that can no longer land: the head is past their expiration and no block has them. */
  private async dead(order: Order, headTimestamp: number): Promise<Undelegation[]> {
    const dead: Undelegation[] = [];
    for (const u of order.undelegations) {
      if (this.inBlock.has(u.txId) || headTimestamp <= expirationOf(u.signedTx)) continue;
      if (await this.reader.transactionInfo(u.txId, 'full')) this.inBlock.add(u.txId);
      else dead.push(u);
    }
    return dead;
  }

  private async resign(closing: Order[]): Promise<void> {
    const { pool, clock, cfg } = this.deps;
    const live = new Set(closing.flatMap((o) => o.undelegations.map((u) => u.txId)));
    for (const id of this.inBlock) if (!live.has(id)) this.inBlock.delete(id);
    if (closing.length === 0) return;
    const head = await this.writer.head();
    let ref: RefBlock | undefined;
    const commands: Command[] = [];
    for (const order of closing) {
      const dead = await this.dead(order, head.timestamp);
      if (dead.length === 0) continue;
      const replaced = dead.map((u) => u.txId);
      const command = await signedOnce(pool, order.id, `close:${replaced[0]}`, async () => {
        ref ??= await this.writer.refBlock(txLifetimeMs(cfg, clock));
        const fresh = await this.suppliers[order.supplier].resign(order, dead, ref);
        const kept = order.undelegations
          .filter((u) => !replaced.includes(u.txId))
          .map((u) => ({ kind: 'undelegate' as const, from: u.from, amount: 0, sun: u.sun, txId: u.txId, signedTx: u.signedTx }));
        return {
          type: 'order.close', commandId: derivedId('command', 'order-close-resigned', order.id, replaced[0]), accountId: order.accountId,
          issuedAt: clock.now(), deadlineAt: null, replyTo: null,
          orderId: order.id, step: 'signed', reason: order.closeReason ?? 'expired', txs: [...kept, ...fresh], idempotencyKey: null, at: clock.now(),
          replaces: replaced,
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
