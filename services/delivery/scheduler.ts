/**
 * The scheduler role. At `expires_at` (on the injected clock), or early when a reclaim was asked, it
 * signs the undelegation of what of the order is still on chain (the pool address's delegated balance to
 * the receiver less what other staying orders hold there, capped at the order's landed delegations; see
 * stakeLeft), stores it with `order.close` (step `signed`), and broadcasts the stored bytes until the
 * confirmer sees them land and finishes the order as expired or reclaimed. When nothing of the order is on
 * chain any more, the signed step carries no transaction and finishes the order at once.
 *
 * A stored undelegation that can no longer land (the head is past its expiration and it is in no block)
 * or that the chain refused (CONTRACT_VALIDATE_ERROR: the stake is not there) is never broadcast again: it
 * is resolved against the chain's delegated balance, re-signed (fresh nonce, so new bytes) for what is
 * left, or dropped when nothing is, stored the same way (`order.close` step `signed` naming what it
 * replaces). So every order leaves `active` within a few passes after `expires_at`.
 *
 * Orders that ended with their money back while stake of theirs landed (closesAfterEnd: refunded, taken
 * back at `expires_at`; failed, at once) are closed the same way, without a status change or event. That
 * includes a failed order's stranded delegations: in a block, but not counted because past the window the
 * pool's delegated balance did not cover them (the confirmer names them in `order.settle`); what of them
 * staying orders do not hold is taken back without `ops reconcile --repair`.
 */
import type { ChainReader } from '../chain/reads';
import { expirationOf, type ChainResource, type ChainWriter, type RefBlock } from '../chain/writes';
import type { Command, SignedTxFact } from '../domain/commands';
import { derivedId } from '../domain/ids';
import type { Order, Undelegation } from '../domain/orders/rules';
import { stakeKey } from '../orders/open-stake';
import { chainResource, type Suppliers } from '../chain/suppliers';
import { PollingRole } from '../platform/polling-role';
import type { Rebroadcaster } from '../chain/rebroadcaster';
import { WorkListCache } from '../orders/work-lists';
import { orderChainOf, txLifetimeMs, type OrderChainDeps } from './chain-deps';
import type { DeliveryStore } from './store';
import { stakeLeft, type StakePart } from './stake-left';

/** Due orders signed in one pass. */
const DUE_AT_ONCE = 500;
/** Chain reads (delegated balance of a pool address to a receiver) in flight at once. */
const READS_AT_ONCE = 8;
const pairKey = (from: string, receiver: string) => `${from}|${receiver}`;

export type SchedulerDeps = OrderChainDeps;

export class Scheduler {
  private readonly writer: ChainWriter;
  private readonly reader: ChainReader;
  private readonly suppliers: Suppliers;
  private readonly sender: Rebroadcaster;
  /** Undelegations of closing orders seen in a block (head view): they need no new signature. */
  private readonly inBlock = new Set<string>();
  /** The closing orders, read every pass, each changed row fetched and parsed once. */
  private readonly closingOrders = new WorkListCache();
  private readonly store: DeliveryStore;

  constructor(private readonly deps: SchedulerDeps) {
    ({ writer: this.writer, reader: this.reader, suppliers: this.suppliers, sender: this.sender, store: this.store } = orderChainOf(deps));
  }

  /** One pass; false when no order was due or closing (PollingRole.idleBackOff). */
  async tick(): Promise<boolean> {
    const due = await this.sign();
    const closing = await this.store.workList('closing', this.deps.clock.now(), 500, this.closingOrders);
    await this.resolve(closing);
    await this.sender.send(closing.flatMap((o) => o.undelegations.map((u) => ({ orderId: o.id, txId: u.txId, signedTx: u.signedTx }))));
    return due + closing.length > 0;
  }

  private closeCommand(order: Order, step: string, txs: SignedTxFact[], replaces: string[], ...idParts: string[]): Command {
    const { clock } = this.deps;
    return {
      type: 'order.close', commandId: derivedId('command', step, order.id, ...idParts), accountId: order.accountId,
      issuedAt: clock.now(), deadlineAt: null, replyTo: null,
      orderId: order.id, step: 'signed', reason: order.closeReason ?? 'expired', txs, idempotencyKey: null, at: clock.now(), replaces,
    };
  }

  /**
   * The parts of `own` still on chain: the pool address's delegated balance to the receiver less what
   * staying orders hold there and less `pending` (this order's own undelegations that may still land).
   */
  private async left(order: Order, own: StakePart[], pending: StakePart[]): Promise<StakePart[]> {
    const resource: ChainResource = chainResource(order);
    const staying = await this.store.openStake({ receivers: [order.receiver], excludeOrder: order.id, leavingAt: this.deps.clock.now() });
    const onChain = new Map<string, bigint>();
    for (const from of new Set(own.map((p) => p.from))) onChain.set(from, (await this.reader.delegated(from, order.receiver, 'full'))[resource]);
    const others = (from: string) =>
      (staying.get(stakeKey(from, order.receiver, resource)) ?? 0n) + pending.filter((p) => p.from === from).reduce((s, p) => s + p.sun, 0n);
    return stakeLeft(own, (from) => onChain.get(from) ?? 0n, others);
  }

  /**
   * Signs the undelegations of a pass's due orders with the pass's reads shared: the closes stored for them
   * already (re-appended as they are, after a crash), one read of what staying orders hold at their
   * receivers, one chain read per pool address and receiver, then the sets stored in one transaction. Per
   * order it was a stored-close read, an open-stake statement, a chain read and a store of its own, and an
   * expiry wave was signed at a few dozen orders a second (bench/README.md, "Open orders and idle CPU").
   */
  private async sign(): Promise<number> {
    const now = this.deps.clock.now();
    const due = await this.store.workList('due-close', now, DUE_AT_ONCE);
    if (due.length === 0) return 0;
    const stored = await this.store.storedCommands(due.map((o) => o.id), 'close');
    const unsigned = due.filter((o) => !stored.has(o.id));
    const made = unsigned.length > 0 ? await this.store.storeSignedSets('close', await this.signCloses(unsigned, now)) : new Map<string, Command | null>();
    const commands = [...stored.values(), ...[...made.values()].filter((c): c is Command => c !== null)];
    if (commands.length > 0) await this.deps.bus.append(commands);
    return due.length;
  }

  /**
   * The close of each order: what of its landed stake (a failed order's stranded delegations included) is
   * still on chain, signed. Every due order is one leaving by `now` (expired, reclaim asked, or ended with
   * stake), so the one open-stake read that leaves out the orders leaving by `now` leaves out each of them.
   */
  private async signCloses(orders: Order[], now: number): Promise<Array<{ orderId: string; command: Command }>> {
    const { clock, cfg } = this.deps;
    const ref = await this.writer.refBlock(txLifetimeMs(cfg, clock));
    const staying = await this.store.openStake({ receivers: [...new Set(orders.map((o) => o.receiver))], leavingAt: now });
    const own = new Map(orders.map((o) => [o.id, o.allocations
      .filter((a) => a.kind === 'delegate' && (a.landed === true || a.stranded === true))
      .map((a) => ({ from: a.from, sun: a.sun }))]));
    const pairs = [...new Set(orders.flatMap((o) => own.get(o.id)!.map((p) => pairKey(p.from, o.receiver))))];
    const onChain = new Map<string, { ENERGY: bigint; BANDWIDTH: bigint }>();
    for (let i = 0; i < pairs.length; i += READS_AT_ONCE) {
      await Promise.all(pairs.slice(i, i + READS_AT_ONCE).map(async (pair) => {
        const [from, receiver] = pair.split('|');
        onChain.set(pair, await this.reader.delegated(from, receiver, 'full'));
      }));
    }
    const sets: Array<{ orderId: string; command: Command }> = [];
    for (const order of orders) {
      const resource = chainResource(order);
      const parts = stakeLeft(own.get(order.id)!, (from) => onChain.get(pairKey(from, order.receiver))?.[resource] ?? 0n,
        (from) => staying.get(stakeKey(from, order.receiver, resource)) ?? 0n);
      const txs = parts.length > 0 ? await this.suppliers[order.supplier].undelegate(order, parts, ref) : [];
      sets.push({ orderId: order.id, command: this.closeCommand(order, 'order-close-signed', txs, []) });
    }
    return sets;
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

  /** Undelegations that expired unlanded or were refused: resolved against the chain, never sent again as they are. */
  private async resolve(closing: Order[]): Promise<void> {
    const { clock, cfg } = this.deps;
    const refused = this.sender.refusals();
    const live = new Set(closing.flatMap((o) => o.undelegations.map((u) => u.txId)));
    for (const id of this.inBlock) if (!live.has(id)) this.inBlock.delete(id);
    if (closing.length === 0) return;
    const head = await this.writer.head();
    let ref: RefBlock | undefined;
    const commands: Command[] = [];
    for (const order of closing) {
      const dead = await this.dead(order, head.timestamp);
      const stuck = [...dead, ...order.undelegations.filter((u) => refused.has(u.txId) && !dead.includes(u))];
      if (stuck.length === 0) continue;
      for (const u of stuck) this.sender.drop(u.txId);
      const replaced = stuck.map((u) => u.txId);
      const command = await this.store.signedOnce(order.id, `close:${replaced[0]}`, async () => {
        const kept = order.undelegations
          .filter((u) => !replaced.includes(u.txId))
          .map((u) => ({ kind: 'undelegate' as const, from: u.from, amount: 0, sun: u.sun, txId: u.txId, signedTx: u.signedTx }));
        const pending = kept.filter((u) => !this.inBlock.has(u.txId));
        const parts = await this.left(order, stuck, pending);
        ref ??= await this.writer.refBlock(txLifetimeMs(cfg, clock));
        const fresh = parts.length > 0 ? await this.suppliers[order.supplier].undelegate(order, parts, ref) : [];
        return this.closeCommand(order, 'order-close-resigned', [...kept, ...fresh], replaced, replaced[0]);
      });
      if (command) commands.push(command);
    }
    if (commands.length > 0) await this.deps.bus.append(commands);
  }
}

export async function startScheduler(deps: SchedulerDeps): Promise<PollingRole> {
  const s = new Scheduler(deps);
  // Nothing due and nothing closing: the polls space out to CHAIN_IDLE_POLL_MS, so an expiry (or a reclaim
  // asked) is taken up that much after its time at most, the rental running on meanwhile at our cost.
  return new PollingRole('scheduler', deps.cfg.CHAIN_POLL_MS, () => s.tick()).idleBackOff(deps.cfg.CHAIN_IDLE_POLL_MS).start();
}
