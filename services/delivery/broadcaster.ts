/**
 * The broadcaster role. For orders waiting for allocation it picks stake (the pool's addresses, split
 * when one cannot cover it, or the provider), signs each order's set once (stored before anything else:
 * the sets of a pass in one transaction, see storeSignedSets and signedOnce) and appends them, one
 * `order.allocations` per account and pass (each entry decided alone by the processor; the first set
 * stored wins). A set without an activation, of an order well inside its wait window, is broadcast as soon
 * as its command is on the log (sendAhead); the rest, and every re-broadcast (after a crash or a lost
 * broadcast), from what the processor applied: the activation first, the delegations once the activation
 * is in a block. What is in a block is learnt from the blocks themselves, read once each. A set sent ahead
 * for an order a POST /v1/orders answer may be waiting for is marked `broadcast`: the processor applies it
 * as `delegated` (read as `active` with its hash) and tells the waiting API after its commit, with no
 * report on the log; every other order goes from `allocating` to `confirmed` (domain/sync-wait.ts).
 */
import { inFlightSun, type Ratio } from '../chain/allocation';
import { MAX_BLOCK_RANGE, type ChainReader } from '../chain/reads';
import type { ChainWriter, RefBlock } from '../chain/writes';
import type { AllocationEntry, Command, CommandOf } from '../domain/commands';
import { derivedId } from '../domain/ids';
import type { Order } from '../domain/orders/rules';
import { mayAwaitBroadcast, syncWaitHorizonMs } from '../domain/sync-wait';
import { chainResource, type Suppliers } from '../chain/suppliers';
import { PollingRole } from '../platform/polling-role';
import { groupPerAccount } from './account-groups';
import { crashPoint } from '../platform/chaos';
import { tracing } from '../platform/telemetry';
import type { OwnedTx, Rebroadcaster } from '../chain/rebroadcaster';
import { WorkListCache } from '../orders/work-lists';
import { orderChainOf, txLifetimeMs, type OrderChainDeps } from './chain-deps';
import { recordOrderSpans } from './order-spans';
import { StoredDelegationsCache } from './signed-sets';
import type { DeliveryStore } from './store';

/** Orders of one pass signed side by side (their stake promised before any await). */
const SIGN_AT_ONCE = 32;
/**
 * Real ms before a stored set this process appended is appended again while its order still waits for
 * allocation: the log acknowledged it, so a repeat only covers an append lost in between (a crash, after
 * which nothing is remembered and every stored set is appended at once), not every pass of a processor's lag.
 */
const REAPPEND_AFTER_MS = 5_000;
/** Blocks whose transaction ids are kept, and how far behind the head a pass may be to read blocks (else it asks per delegation). */
const BLOCKS_SCANNED = 300;

export type BroadcasterDeps = OrderChainDeps;

export class Broadcaster {
  private readonly writer: ChainWriter;
  private readonly reader: ChainReader;
  private readonly suppliers: Suppliers;
  private readonly sender: Rebroadcaster;
  /** Activations seen in a block (head view): their delegations may go. */
  private readonly activated = new Set<string>();
  /** Stored delegations of allocating orders seen in a block (head view): no longer in flight. */
  private readonly inBlock = new Set<string>();
  /** Transaction ids of the blocks read (scanHead), with their block number; the last block read. */
  private readonly headSeen = new Map<string, number>();
  private headTo: number | null = null;
  /** The stored sets' delegations, each set read and parsed once (they never change). */
  private readonly stored = new StoredDelegationsCache();
  /** The work lists read every pass, each changed row fetched and parsed once. */
  private readonly unallocated = new WorkListCache();
  private readonly allocatedOrders = new WorkListCache();
  /** Stored sets of orders waiting for allocation (they never change), and when this process last appended each. */
  private readonly storedSets = new Map<string, Command>();
  private readonly appendedAt = new Map<string, number>();
  private readonly store: DeliveryStore;

  constructor(private readonly deps: BroadcasterDeps) {
    ({ writer: this.writer, reader: this.reader, suppliers: this.suppliers, sender: this.sender, store: this.store } = orderChainOf(deps));
  }

  /** One pass; false when it found nothing to do (no order to allocate, none allocated: PollingRole.idleBackOff). */
  async tick(): Promise<boolean> {
    const allocating = await this.allocate();
    const allocated = await this.broadcast();
    return allocating + allocated > 0;
  }

  /** Signs and appends this pass's orders waiting for allocation; answers how many are waiting. */
  private async allocate(): Promise<number> {
    const { clock, cfg } = this.deps;
    const started = Date.now();
    const orders = await this.store.workList('needs-allocation', clock.now(), 200, this.unallocated);
    const ids = new Set(orders.map((o) => o.id));
    for (const id of this.storedSets.keys()) if (!ids.has(id)) this.storedSets.delete(id);
    for (const id of this.appendedAt.keys()) if (!ids.has(id)) this.appendedAt.delete(id);
    if (orders.length === 0) return 0;
    // Sets stored in an earlier pass (appended again: a crash between store and append); each read once.
    const unknown = orders.filter((o) => !this.storedSets.has(o.id)).map((o) => o.id);
    // The reference block and the stake in flight are read beside the stored sets (an order not seen before
    // is nearly always unsigned): round trips less on a new order's way to its answer; unused only when
    // every such set was stored. Every unsigned order is an unknown one, so a pass that signs has both.
    const ref = unknown.length > 0 ? this.writer.refBlock(txLifetimeMs(cfg, clock)) : null;
    const inFlight = ref ? this.inFlight(ref) : null;
    ref?.catch(() => undefined);
    inFlight?.catch(() => undefined);
    for (const [id, command] of await this.store.storedCommands(unknown, 'allocate')) this.storedSets.set(id, command);
    const unsigned = orders.filter((o) => !this.storedSets.has(o.id));
    const realNow = Date.now();
    const commands: Command[] = orders.flatMap((o) => {
      const command = this.storedSets.get(o.id);
      return command && realNow - (this.appendedAt.get(o.id) ?? 0) >= REAPPEND_AFTER_MS ? [command] : [];
    });
    const signed = unsigned.length > 0 && ref && inFlight ? await this.signPass(unsigned, await ref, inFlight) : [];
    for (const c of signed) this.storedSets.set((c as { orderId: string }).orderId, c);
    commands.push(...signed);
    if (commands.length === 0) return orders.length;
    const ahead = this.sentAhead(orders, signed);
    await this.deps.bus.append(this.groups(commands, ahead, orders));
    for (const c of commands) this.appendedAt.set((c as { orderId: string }).orderId, realNow);
    await recordOrderSpans(this.store, 'broadcaster allocate', signed.map((c) => (c as { orderId: string }).orderId), started);
    crashPoint('broadcaster.after-append');
    await this.sendAhead(ahead);
    return orders.length;
  }

  /**
   * The pass's sets, one `order.allocations` per account (one writer per account: an account's orders are
   * applied on its partition). An entry is `broadcast` when its set is sent ahead and an answer may still be
   * waiting for its order (domain/sync-wait.ts). The id derives from the account and the group's orders: a
   * repeat of the same sets (a re-append, REAPPEND_AFTER_MS) is the same command and applies once, as the
   * per-order command did; a group of other orders is a command of its own whose entries already applied
   * change nothing.
   */
  private groups(commands: Command[], ahead: Array<CommandOf<'order.allocate'>>, orders: Order[]): Command[] {
    const { clock, cfg } = this.deps;
    const now = clock.now();
    const horizonMs = syncWaitHorizonMs(clock.realDelay(cfg.COMMAND_TIMEOUT_MS), cfg.ORDER_SYNC_WAIT_MS);
    const byId = new Map(orders.map((o) => [o.id, o]));
    const sent = new Set(ahead.map((c) => c.orderId));
    const entries = commands.flatMap((c) => {
      if (c.type !== 'order.allocate') return [];
      const order = byId.get(c.orderId);
      const broadcast = sent.has(c.orderId) && order !== undefined && mayAwaitBroadcast(order, clock.realDelay(now - order.createdAt), horizonMs);
      const entry: AllocationEntry = { orderId: c.orderId, txs: c.txs, ratioLimit: c.ratioLimit, ratioWeight: c.ratioWeight, broadcast };
      return [{ accountId: c.accountId, entry }];
    });
    return groupPerAccount('order-allocations', entries).map((g) => ({ type: 'order.allocations', ...g, issuedAt: now, deadlineAt: null, replyTo: null }));
  }

  /**
   * Signs the orders of a pass and stores their sets: those claiming an activation one by one (signedOnce,
   * the claim decided at the store), the others in one transaction (storeSignedSets). Answers the stored
   * commands to append.
   */
  private async signPass(orders: Order[], ref: RefBlock, inFlightStake: Promise<Map<string, bigint>>): Promise<Command[]> {
    const { clock } = this.deps;
    // In flight (read before this pass, from the reference block `ref`) before the delegatable stake is read:
    // one landing in between is then subtracted twice (this pass fills less), never not at all.
    // The chain's ratios are read side by side with the in-flight stake and the receivers' activation.
    const ratios = new Map<string, Promise<Ratio>>();
    for (const order of orders) {
      const key = `${order.supplier}:${chainResource(order)}`;
      if (ratios.has(key)) continue;
      const reading = this.suppliers[order.supplier].ratio(chainResource(order));
      reading.catch(() => undefined);
      ratios.set(key, reading);
    }
    const [inFlight, inactive] = await Promise.all([inFlightStake, this.inactiveReceivers(orders)]);
    await this.suppliers.pool.refresh(inFlight);
    await this.suppliers.provider.refresh(inFlight);
    const claimed = new Map<string, string>();
    // The stake an order takes is promised before any await (StakeSupplier.allocate) and the activation
    // claim is decided synchronously (activates), so the orders are signed side by side.
    const make = async (order: Order, activates: boolean): Promise<Command | null> => {
      const ratio = await (ratios.get(`${order.supplier}:${chainResource(order)}`) as Promise<Ratio>);
      const filled = await this.suppliers[order.supplier].allocate(order, ref, ratio, activates);
      if (!filled) return null;
      return {
        type: 'order.allocate', commandId: derivedId('command', 'order-allocate', order.id), accountId: order.accountId,
        issuedAt: clock.now(), deadlineAt: null, replyTo: null,
        orderId: order.id, txs: filled.txs, ratioLimit: filled.ratio.limit, ratioWeight: filled.ratio.weight,
      };
    };
    const out: Command[] = [];
    const plain: Array<{ orderId: string; command: Command }> = [];
    for (let i = 0; i < orders.length; i += SIGN_AT_ONCE) {
      await Promise.all(orders.slice(i, i + SIGN_AT_ONCE).map(async (order) => {
        const activates = this.activates(order, inactive, claimed);
        if (!activates) {
          const command = await make(order, false);
          if (command) plain.push({ orderId: order.id, command });
          return;
        }
        const command = await this.store.signedOnce(order.id, 'allocate', () => make(order, true), order.receiver);
        if (command) out.push(command);
      }));
    }
    for (const command of (await this.store.storeSignedSets('allocate', plain)).values()) if (command) out.push(command);
    return out;
  }

  /**
   * Broadcasts the delegations of sets this pass stored and appended (the log acknowledged their
   * order.allocations), before the processor applies them: a hop through the log and a wake-up less. Only
   * sets without an activation, of orders inside half their wait window. Nothing can then be delegated for
   * an order that never gets its set: the order leaves `allocating` before its set is applied only by a
   * settle the confirmer appends past the window, and it appends none for an order with a stored set (it
   * waits for the set to be applied); a settle decided before the set was stored comes past the window, so
   * the set is not sent ahead. Once applied, what lands is settled as for any set. (The sets this pass
   * sends ahead: sentAhead; their delegations go once the pass's groups are on the log: sendAhead.)
   */
  private sentAhead(orders: Order[], appended: Command[]): Array<CommandOf<'order.allocate'>> {
    const now = this.deps.clock.now();
    const young = new Set(orders.filter((o) => now - o.createdAt < this.deps.cfg.ORDER_WAIT_WINDOW_MS / 2).map((o) => o.id));
    return appended.filter((c): c is CommandOf<'order.allocate'> => c.type === 'order.allocate' && young.has(c.orderId) && c.txs.every((t) => t.kind === 'delegate'));
  }

  private async sendAhead(ahead: Array<CommandOf<'order.allocate'>>): Promise<void> {
    const txs: OwnedTx[] = ahead.flatMap((c) => c.txs.map((t) => ({ orderId: c.orderId, txId: t.txId, signedTx: t.signedTx })));
    if (txs.length > 0) await this.sendTraced(txs, (t) => this.sender.sendAhead(t));
  }

  /** Sends; then the span of each order the node accepted every transaction of in this send (none before). */
  private async sendTraced(txs: OwnedTx[], send: (txs: OwnedTx[]) => Promise<void>): Promise<void> {
    const started = Date.now();
    const fresh = tracing() ? new Set(txs.filter((t) => !this.sender.wasAccepted(t.txId)).map((t) => t.orderId)) : new Set<string>();
    await send(txs);
    if (fresh.size === 0) return;
    const accepted = [...fresh].filter((id) => txs.every((t) => t.orderId !== id || this.sender.wasAccepted(t.txId)));
    await recordOrderSpans(this.store, 'broadcaster broadcast', accepted, started);
  }

  /**
   * Receivers of this pass's orders charged for an activation that are still not on chain, with the live
   * order (if any) that already claimed their activation: one query and one read per receiver.
   */
  private async inactiveReceivers(orders: Order[]): Promise<Map<string, string | null>> {
    const receivers = [...new Set(orders.filter((o) => o.activateSun > 0n).map((o) => o.receiver))];
    const claimants = await this.store.activationClaimants(receivers);
    const out = new Map<string, string | null>();
    for (let i = 0; i < receivers.length; i += 16) {
      await Promise.all(receivers.slice(i, i + 16).map(async (r) => {
        if (!(await this.reader.account(r, 'full')).exists) out.set(r, claimants.get(r) ?? null);
      }));
    }
    return out;
  }

  /**
   * Whether this order signs the receiver's activation: it was charged for one, the receiver is still not
   * on chain, and no other live order claimed it (in an earlier pass, or earlier in this one; the claim
   * itself is taken when the set is stored). An order charged for an activation it does not perform gets
   * that part back at settlement.
   */
  private activates(order: Order, inactive: Map<string, string | null>, claimedThisPass: Map<string, string>): boolean {
    if (order.activateSun === 0n || !inactive.has(order.receiver)) return false;
    const claimant = inactive.get(order.receiver) ?? claimedThisPass.get(order.receiver) ?? null;
    if (claimant !== null && claimant !== order.id) return false;
    claimedThisPass.set(order.receiver, order.id);
    return true;
  }

  /**
   * Stake of stored delegations not in a block yet that may still land, per address and resource. What is
   * in a block is learnt from the blocks up to the reference block, read once each (a pass reads the few
   * produced since the last); at the first pass, or one far behind, by asking about each delegation.
   */
  private async inFlight(refBlock: Promise<RefBlock>): Promise<Map<string, bigint>> {
    const [stored, [ref, scanned]] = await Promise.all([
      this.store.storedDelegations(this.stored),
      refBlock.then(async (r) => [r, await this.scanHead(r)] as const),
    ]);
    const live = new Set(stored.map((d) => d.txId));
    for (const id of this.inBlock) if (!live.has(id)) this.inBlock.delete(id);
    for (const d of stored) if (this.headSeen.has(d.txId)) this.inBlock.add(d.txId);
    const delegations = stored.map((d) => ({ ...d, inBlock: false }));
    if (!scanned) {
      const unsure = delegations.filter((d) => !this.inBlock.has(d.txId) && ref.timestamp <= d.expiration);
      for (let i = 0; i < unsure.length; i += 16) {
        await Promise.all(unsure.slice(i, i + 16).map(async (d) => {
          if (await this.reader.transactionInfo(d.txId, 'full')) this.inBlock.add(d.txId);
        }));
      }
    }
    for (const d of delegations) d.inBlock = this.inBlock.has(d.txId);
    return inFlightSun(delegations, ref.timestamp);
  }

  /**
   * Reads the transaction ids of the blocks after `headTo` up to the reference block into `headSeen`. True
   * when every block after the one `headTo` named before is read; false at the first pass or far behind
   * (then `headTo` becomes the reference block, the caller asks about each transaction, and the blocks after
   * it are read from the next pass on) or when a block is not served yet.
   */
  private async scanHead(ref: RefBlock): Promise<boolean> {
    const head = ref.number;
    if (head === undefined) return false;
    if (this.headTo === null || head - this.headTo > BLOCKS_SCANNED || head < this.headTo) {
      this.headSeen.clear();
      this.headTo = head;
      return false;
    }
    while (this.headTo < head) {
      const { ids, last } = await this.reader.blockTxIds(this.headTo + 1, Math.min(head, this.headTo + MAX_BLOCK_RANGE) + 1, 'full');
      if (last === null) return false;
      for (const id of ids) this.headSeen.set(id, last);
      this.headTo = last;
    }
    for (const [id, n] of this.headSeen) if (n <= head - BLOCKS_SCANNED) this.headSeen.delete(id);
    return true;
  }

  /** Broadcasts what the allocated orders may send now; answers how many orders are allocated. */
  private async broadcast(): Promise<number> {
    const orders = await this.store.workList('allocated', this.deps.clock.now(), 500, this.allocatedOrders);
    const live = new Set(orders.flatMap((o) => o.allocations.map((a) => a.txId)));
    for (const id of this.activated) if (!live.has(id)) this.activated.delete(id);
    const txs: OwnedTx[] = [];
    for (const order of orders) {
      // A delegation seen in a block (inFlight) is not sent again: the node would only answer DUP_TRANSACTION
      // (and cost an owner lookup) every pass until the confirmer settles the order.
      const sendable = (await this.ready(order)).filter((a) => !this.inBlock.has(a.txId));
      txs.push(...sendable.map((a) => ({ orderId: order.id, txId: a.txId, signedTx: a.signedTx })));
    }
    await this.sendTraced(txs, (t) => this.sender.send(t));
    return orders.length;
  }

  /** The transactions of an order that may be broadcast now. */
  private async ready(order: Order): Promise<Array<{ txId: string; signedTx: string }>> {
    const activation = order.allocations.find((a) => a.kind === 'activate');
    if (activation && !this.activated.has(activation.txId) && !this.headSeen.has(activation.txId)) {
      const info = await this.reader.transactionInfo(activation.txId, 'full');
      if (!info) return [activation];
      this.activated.add(activation.txId);
    }
    // Without an activation of its own, an order for a receiver another order activates broadcasts its
    // delegations anyway: refused until the activation lands, then accepted (a refusal is retried).
    return order.allocations.filter((a) => a.kind === 'delegate');
  }
}

export async function startBroadcaster(deps: BroadcasterDeps): Promise<PollingRole> {
  const b = new Broadcaster(deps);
  // Woken when the processor commits an order to allocate or a signed set to broadcast (the order_work
  // trigger), so a new order does not wait out the poll twice; the poll stays the fallback, and with nothing
  // in either list (only a notified order brings work) it spaces out to CHAIN_IDLE_POLL_MS.
  return new PollingRole('broadcaster', deps.cfg.CHAIN_POLL_MS, () => b.tick())
    .wakeOn(deps.pool, 'order_work').coalesce(deps.cfg.CHAIN_WAKE_GAP_MS).idleBackOff(deps.cfg.CHAIN_IDLE_POLL_MS).start();
}
