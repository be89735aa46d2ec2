/**
 * The broadcaster role. For an order waiting for allocation it picks stake (the pool's addresses, split
 * when one cannot cover it, or the provider), signs the set once (stored before anything else, see
 * signedOnce) and appends `order.allocate`; the processor keeps the first set stored. Then it broadcasts
 * only what the processor stored, again after a crash or a lost broadcast: the activation first, the
 * delegations once the activation is in a block. Once the node accepted every delegation of an order it
 * appends `order.deliver` broadcast (the order becomes `delegated`; POST /v1/orders may answer with it).
 */
import { inFlightSun, type Ratio } from '../chain/allocation';
import type { ChainReader } from '../chain/reads';
import { expirationOf, type ChainWriter } from '../chain/writes';
import type { Command } from '../domain/commands';
import { derivedId } from '../domain/ids';
import type { Order } from '../domain/orders';
import { chainResource, type Suppliers } from './suppliers';
import {
  activationClaimants, orderChainOf, PollingRole, Rebroadcaster, signedOnce, storedDelegations, txLifetimeMs, workList,
  type OrderChainDeps, type OwnedTx,
} from './work';

/** Orders of one pass signed and stored at the same time. */
const SIGN_AT_ONCE = 8;

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
  /** Allocating orders whose broadcast was reported (bounded: trimmed to the orders still in the work list). */
  private readonly reported = new Set<string>();

  constructor(private readonly deps: BroadcasterDeps) {
    ({ writer: this.writer, reader: this.reader, suppliers: this.suppliers, sender: this.sender } = orderChainOf(deps));
  }

  async tick(): Promise<void> {
    await this.allocate();
    await this.broadcast();
  }

  private async allocate(): Promise<void> {
    const { pool, clock, cfg } = this.deps;
    const orders = await workList(pool, 'needs-allocation', clock.now(), 200);
    if (orders.length === 0) return;
    const ref = await this.writer.refBlock(txLifetimeMs(cfg, clock));
    // In flight before the delegatable stake is read: one landing in between is then subtracted twice
    // (this pass fills less), never not at all.
    const inFlight = await this.inFlight(ref.timestamp);
    await this.suppliers.pool.refresh(inFlight);
    await this.suppliers.provider.refresh(inFlight);
    const ratios = new Map<string, Ratio>();
    const commands: Command[] = [];
    const inactive = await this.inactiveReceivers(orders);
    const claimed = new Map<string, string>();
    // Orders are signed and stored SIGN_AT_ONCE at a time: each costs a few database round trips (read,
    // store in a transaction, read back) that overlap; the stake they take is promised before any await
    // (StakeSupplier.allocate), and the activation claim is decided synchronously (activates).
    const sign = async (order: Order): Promise<Command | null> => signedOnce(pool, order.id, 'allocate', async () => {
      const supplier = this.suppliers[order.supplier];
      const resource = chainResource(order);
      const key = `${order.supplier}:${resource}`;
      if (!ratios.has(key)) ratios.set(key, await supplier.ratio(resource));
      const filled = await supplier.allocate(order, ref, ratios.get(key) as Ratio, this.activates(order, inactive, claimed));
      if (!filled) return null;
      return {
        type: 'order.allocate', commandId: derivedId('command', 'order-allocate', order.id), accountId: order.accountId,
        issuedAt: clock.now(), deadlineAt: null, replyTo: null,
        orderId: order.id, txs: filled.txs, ratioLimit: filled.ratio.limit, ratioWeight: filled.ratio.weight,
      };
    }, order.receiver);
    for (let i = 0; i < orders.length; i += SIGN_AT_ONCE) {
      for (const command of await Promise.all(orders.slice(i, i + SIGN_AT_ONCE).map(sign))) if (command) commands.push(command);
    }
    if (commands.length > 0) await this.deps.bus.append(commands);
  }

  /**
   * Receivers of this pass's orders charged for an activation that are still not on chain, with the live
   * order (if any) that already claimed their activation: one query and one read per receiver.
   */
  private async inactiveReceivers(orders: Order[]): Promise<Map<string, string | null>> {
    const receivers = [...new Set(orders.filter((o) => o.activateSun > 0n).map((o) => o.receiver))];
    const claimants = await activationClaimants(this.deps.pool, receivers);
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

  /** Stake of stored delegations not in a block yet that may still land, per address and resource. */
  private async inFlight(headTimestamp: number): Promise<Map<string, bigint>> {
    const stored = await storedDelegations(this.deps.pool);
    const live = new Set(stored.map((d) => d.txId));
    for (const id of this.inBlock) if (!live.has(id)) this.inBlock.delete(id);
    const delegations = stored.map((d) => ({ ...d, expiration: expirationOf(d.signedTx), inBlock: false }));
    const unsure = delegations.filter((d) => !this.inBlock.has(d.txId) && headTimestamp <= d.expiration);
    for (let i = 0; i < unsure.length; i += 16) {
      await Promise.all(unsure.slice(i, i + 16).map(async (d) => {
        if (await this.reader.transactionInfo(d.txId, 'full')) this.inBlock.add(d.txId);
      }));
    }
    for (const d of delegations) d.inBlock = this.inBlock.has(d.txId);
    return inFlightSun(delegations, headTimestamp);
  }

  private async broadcast(): Promise<void> {
    const orders = await workList(this.deps.pool, 'allocated', this.deps.clock.now());
    const live = new Set(orders.flatMap((o) => o.allocations.map((a) => a.txId)));
    for (const id of this.activated) if (!live.has(id)) this.activated.delete(id);
    const txs: OwnedTx[] = [];
    for (const order of orders) {
      // A delegation seen in a block (inFlight) is not sent again: the node would only answer DUP_TRANSACTION
      // (and cost an owner lookup) every pass until the confirmer settles the order.
      const sendable = (await this.ready(order)).filter((a) => !this.inBlock.has(a.txId));
      txs.push(...sendable.map((a) => ({ orderId: order.id, txId: a.txId, signedTx: a.signedTx })));
    }
    await this.sender.send(txs);
    await this.reportBroadcasts(orders);
  }

  /**
   * `order.deliver` broadcast for each allocating order whose every delegation the node accepted: the
   * order is `delegated`, its hash on the way (POST /v1/orders answers with it when that is quick). The
   * command id derives from the order, so a repeat (another pass, a restart) applies once.
   */
  private async reportBroadcasts(orders: Order[]): Promise<void> {
    const ids = new Set(orders.map((o) => o.id));
    for (const id of this.reported) if (!ids.has(id)) this.reported.delete(id);
    const commands: Command[] = [];
    for (const order of orders) {
      const delegations = order.allocations.filter((a) => a.kind === 'delegate');
      if (order.status !== 'allocating' || this.reported.has(order.id) || delegations.length === 0) continue;
      if (!delegations.every((a) => this.sender.wasAccepted(a.txId) || this.inBlock.has(a.txId))) continue;
      commands.push({
        type: 'order.deliver', commandId: derivedId('command', 'order-broadcast', order.id), accountId: order.accountId, issuedAt: this.deps.clock.now(),
        deadlineAt: null, replyTo: null, orderId: order.id, step: 'broadcast', txIds: delegations.map((a) => a.txId), at: this.deps.clock.now(),
      });
    }
    if (commands.length === 0) return;
    await this.deps.bus.append(commands);
    for (const c of commands) if (c.type === 'order.deliver') this.reported.add(c.orderId);
  }

  /** The transactions of an order that may be broadcast now. */
  private async ready(order: Order): Promise<Array<{ txId: string; signedTx: string }>> {
    const activation = order.allocations.find((a) => a.kind === 'activate');
    if (activation && !this.activated.has(activation.txId)) {
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
  // trigger), so a new order does not wait out the poll twice; the poll stays the fallback.
  return new PollingRole('broadcaster', deps.cfg.CHAIN_POLL_MS, () => b.tick()).wakeOn(deps.pool, 'order_work').start();
}
