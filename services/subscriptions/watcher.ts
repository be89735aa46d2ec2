/**
 * The subscription-watcher role: follows the chain block by block from a position checkpointed in
 * PostgreSQL, keeps the free energy and bandwidth of every watched receiver in memory, and re-reads a
 * receiver only when a block's transactions name it (or when it has never been read: a new subscription,
 * or a restart). A crossing below threshold_amount appends one `subscription.refill`; a suspension whose
 * cause cleared appends one `subscription.resume`. Both ids derive from the subscription's state, so a
 * watcher killed between seeing a crossing and appending repeats the very same command after restart.
 */
import { ChainUnavailable } from '../chain/errors';
import type { Block, ChainReader } from '../chain/reads';
import type { Command } from '../domain/commands';
import { derivedId } from '../domain/ids';
import type { Order } from '../domain/orders/rules';
import type { PriceTable } from '../domain/pricing';
import type { Clock } from '../platform/clock';
import type { Config } from '../platform/config';
import type { CommandBus } from '../platform/command-bus';
import type { Pool } from '../platform/db/pool';
import { crashPoint } from '../platform/chaos';
import { PollingRole } from '../platform/polling-role';
import type { Subscription } from '../domain/subscriptions/rules';
import { ordersById, plansToUndelegate } from '../orders/reads';
import { subscriptionsOfReceivers, subscriptionsThatMayAct, watchedThresholds, type WatchedSubscription, type WatchedThreshold } from './store';
import { stakeCovers, supplierAddresses } from './pool-cover';
import { freeOf, planAction, refillPrice, touchedBy, watchAction, type FreeResources } from './watch-rules';

export interface WatcherDeps {
  cfg: Config;
  pool: Pool;
  bus: Pick<CommandBus, 'append'>;
  clock: Clock;
  reader: ChainReader;
  prices: PriceTable;
  /** Parallel resource reads; bounded so 10,000 receivers never open 10,000 requests. */
  readConcurrency?: number;
}

const POSITION_ID = 'watcher';
/** Blocks applied per pass at most (one range read), so a watcher far behind still acts between them. */
const MAX_BLOCKS_PER_PASS = 20;
/** Every watched subscription read again at most this often (real ms); in between, only those of touched receivers. */
const FULL_PASS_MS = 3000;

export class SubscriptionWatcher {
  /** Free resources by receiver; bounded by the watched set (receivers no longer watched are dropped each full pass). */
  private readonly free = new Map<string, FreeResources>();
  /** The read each receiver's free resources come from (a counter taken when the read was sent): a slower, older read never overwrites a newer one. */
  private readonly readSeq = new Map<string, number>();
  private reads = 0;
  /** Receivers seen on chain (an account, once created, stays): their refills pay no activation and need no read. */
  private readonly activeReceivers = new Set<string>();
  /** The head loop's wait (woken to stop) and the full pass loop's. */
  private lastHead = -1;
  /** The newest head's block time, and the shortest block interval seen between heads (chain ms): when the next block is due. */
  private headAt: number | undefined;
  private blockMs: number | undefined;
  /** Refill receivers watched with their thresholds, as of the last full pass. */
  private thresholds: WatchedThreshold[] | undefined;
  private watched = new Set<string>();
  /** The supplier's stake addresses, worked out when a plan is first due (a watcher of refills only needs no pool keys). */
  private supplierAddresses: string[] | undefined;
  private position: number | null | undefined;
  private loops: PollingRole[] = [];
  /**
   * Blocks applied, for the bench (the newest 10,000): ms from the block's time to the block read
   * (`seenLagMs`: how late the watcher learnt of it) and to its receivers read again (`lagMs`).
   */
  readonly applied: Array<{ block: number; seenLagMs: number; lagMs: number; reads: number }> = [];
  /** Real ms of each full pass, for the bench; the newest 1,000. */
  readonly fullPassMs: number[] = [];

  constructor(private readonly deps: WatcherDeps) {}

  /**
   * Two loops: the head's (new blocks and the subscriptions of the receivers they name, read as each block is
   * due) and the full pass's (every FULL_PASS_MS), so a crossing never waits for a full pass to end. They may
   * act on the same subscription at once: both derive the same command id from the same state, and the
   * processor applies it once (as after a restart).
   */
  start(): void {
    this.loops = [
      new PollingRole('subscription watcher', () => this.nextReadInMs(Date.now()), () => this.followHead()).start(),
      new PollingRole('subscription watcher (full pass)', (took) => Math.max(0, FULL_PASS_MS - took), () => this.fullPass()).start(),
    ];
  }

  async stop(): Promise<void> {
    await Promise.all(this.loops.map((loop) => loop.stop()));
  }

  /**
   * Real ms until the next read of the head: until the next block is due (the head's time plus the block
   * interval), at most CHAIN_POLL_MS; SUBSCRIPTION_HEAD_POLL_MS from then on until it comes. When the chain's
   * clock and this one disagree by more than a block (the head is overdue by more than an interval), back to
   * CHAIN_POLL_MS.
   */
  nextReadInMs(now: number): number {
    const { CHAIN_POLL_MS, SUBSCRIPTION_HEAD_POLL_MS } = this.deps.cfg;
    // Nothing watched: no block can matter until the full pass finds a subscription (it wakes this loop then).
    if (this.nothingWatched()) return FULL_PASS_MS;
    if (this.headAt === undefined || this.blockMs === undefined) return CHAIN_POLL_MS;
    const untilDue = this.headAt + this.blockMs - now;
    if (untilDue < -this.blockMs) return CHAIN_POLL_MS;
    return Math.min(CHAIN_POLL_MS, Math.max(SUBSCRIPTION_HEAD_POLL_MS, untilDue));
  }

  /** One pass of each loop, in order (the first pass of a bench, a test). */
  async tick(): Promise<void> {
    await this.followHead();
    await this.fullPass();
  }

  /**
   * The head loop's pass: applies new blocks to the watched receivers they name, then acts on those
   * receivers' subscriptions at once (work in proportion to the named receivers, not the watched ones).
   */
  async followHead(): Promise<void> {
    // Blocks are followed knowing the watched set (on a first start the position begins at the head).
    if (this.thresholds === undefined) await this.readThresholds();
    if (this.nothingWatched()) return this.skipBlocks();
    const headBlock = await this.deps.reader.headBlock('full');
    const head = headBlock.number;
    if (head <= this.lastHead) return;
    this.noteHead(head, headBlock.timestamp);
    const touched = await this.followBlocks(headBlock);
    // Only once followed: a failed read is tried again at the next poll, not at the next block.
    this.lastHead = head;
    if (touched.size > 0) await this.act(await subscriptionsOfReceivers(this.deps.pool, [...touched]), false);
  }

  private nothingWatched(): boolean {
    return this.thresholds !== undefined && this.watched.size === 0;
  }

  /** The head's time and the shortest block interval seen, for nextReadInMs. */
  private noteHead(head: number, timestamp: number): void {
    if (this.headAt !== undefined && this.lastHead >= 0) {
      const interval = (timestamp - this.headAt) / (head - this.lastHead);
      if (interval > 0) this.blockMs = Math.min(this.blockMs ?? interval, interval);
    }
    this.headAt = timestamp;
  }

  /**
   * With nothing watched no block names a watched receiver: the position moves to the head (its header, not
   * its transactions), so a receiver watched later is followed from about there, not from where watching
   * stopped, and is read directly by the full pass that first sees it. Kept where it is when the full pass
   * found a subscription while the header was read: that receiver's direct read may predate the head read,
   * so the blocks since are followed instead.
   */
  private async skipBlocks(): Promise<void> {
    const header = await this.deps.reader.nowBlock('full');
    if (!this.nothingWatched() || header.number <= this.lastHead) return;
    this.noteHead(header.number, header.timestamp);
    const position = await this.storedPosition();
    if (position === null || header.number > position) await this.savePosition(header.number);
    this.lastHead = header.number;
  }

  /**
   * The full pass: reads the watched receivers' thresholds (three columns), every receiver not read yet (new
   * subscriptions, a restart), again those below their threshold by an older read (the last refill may have
   * landed since), and acts on only the subscriptions that may: refills below their threshold, suspended
   * ones, plans. Receivers the head loop read during the pass are its to act on.
   */
  async fullPass(): Promise<void> {
    const at = performance.now();
    const firstRead = this.reads;
    await this.readThresholds();
    const unread = [...this.watched].filter((r) => !this.free.has(r));
    await this.readAll(unread);
    const below = [...new Set((this.thresholds ?? []).filter((t) => this.isBelow(t.receiver, t.resource, t.thresholdAmount)).map((t) => t.receiver))];
    const fresh = new Set(unread);
    const stale = below.filter((r) => !fresh.has(r) && (this.readSeq.get(r) ?? -1) < firstRead);
    await this.readAll(stale);
    const readHere = new Set([...unread, ...stale]);
    await this.act(await subscriptionsThatMayAct(this.deps.pool, below.filter((r) => readHere.has(r))), true);
    this.fullPassMs.push(performance.now() - at);
    if (this.fullPassMs.length > 1_000) this.fullPassMs.splice(0, this.fullPassMs.length - 1_000);
  }

  /** The watched refills' receivers and thresholds (three columns of each); receivers no longer watched are forgotten. */
  private async readThresholds(): Promise<void> {
    const idle = this.nothingWatched();
    this.thresholds = await watchedThresholds(this.deps.pool);
    this.watched = new Set(this.thresholds.map((t) => t.receiver));
    // The head loop waits a full pass while nothing is watched: it follows blocks again from now.
    if (idle && this.watched.size > 0) this.loops[0]?.wake();
    for (const r of this.free.keys()) {
      if (!this.watched.has(r)) {
        this.free.delete(r);
        this.readSeq.delete(r);
      }
    }
    for (const r of this.activeReceivers) if (!this.watched.has(r)) this.activeReceivers.delete(r);
  }

  /** The stored position, read once; afterwards this watcher is the only writer of it. */
  private async storedPosition(): Promise<number | null> {
    if (this.position !== undefined) return this.position;
    const { rows } = await this.deps.pool.query('SELECT block_number FROM subscription_watcher_position WHERE id = $1', [POSITION_ID]);
    this.position = rows[0] ? Number(rows[0].block_number) : null;
    return this.position;
  }

  private async savePosition(block: number): Promise<void> {
    await this.deps.pool.query(
      `INSERT INTO subscription_watcher_position (id, block_number, updated_at) VALUES ($1, $2, $3)
       ON CONFLICT (id) DO UPDATE SET block_number = EXCLUDED.block_number, updated_at = EXCLUDED.updated_at`,
      [POSITION_ID, block, new Date(this.deps.clock.now())],
    );
    this.position = block;
  }

  /** Applies the blocks after the position up to the head; returns the watched receivers they named (now re-read). */
  private async followBlocks(headBlock: Block): Promise<Set<string>> {
    const head = headBlock.number;
    const seen = new Set<string>();
    const from = await this.storedPosition();
    // First start: nothing before the head matters (every receiver is read directly once anyway).
    if (from === null) {
      await this.savePosition(head);
      return seen;
    }
    const last = Math.min(head, from + MAX_BLOCKS_PER_PASS);
    if (last <= from) return seen;
    // One read for all the blocks: the head read is the head block itself (usually the only new one), and the
    // blocks before it, when behind, come in one range read.
    const before = last === head ? last : last + 1;
    const blocks = [...(before > from + 1 ? await this.deps.reader.blockRange(from + 1, before, 'full') : []), ...(last === head ? [headBlock] : [])];
    const seenAt = this.deps.clock.now();
    const followed: Block[] = [];
    for (const block of blocks) {
      if (block.number !== from + 1 + followed.length) break;
      followed.push(block);
      for (const a of touchedBy(block)) if (this.watched.has(a)) seen.add(a);
      for (const tx of block.transactions) if (tx.owner && this.watched.has(tx.owner)) this.activeReceivers.add(tx.owner);
    }
    // A receiver named by several of the blocks is read once, after all of them.
    await this.readAll([...seen]);
    const readAt = this.deps.clock.now();
    for (const block of followed) {
      const reads = [...touchedBy(block)].filter((a) => this.watched.has(a)).length;
      this.applied.push({ block: block.number, seenLagMs: seenAt - block.timestamp, lagMs: readAt - block.timestamp, reads });
    }
    if (this.applied.length > 10_000) this.applied.splice(0, this.applied.length - 10_000);
    const applied = from + followed.length;
    if (applied > from) await this.savePosition(applied);
    return seen;
  }

  private async readAll(receivers: string[]): Promise<void> {
    const limit = this.deps.readConcurrency ?? 32;
    for (let i = 0; i < receivers.length; i += limit) {
      await Promise.all(receivers.slice(i, i + limit).map(async (r) => {
        const seq = this.reads++;
        const raw = await this.deps.reader.call('full', 'getaccountresource', { address: r });
        if ((this.readSeq.get(r) ?? -1) > seq) return;
        this.free.set(r, freeOf(raw));
        this.readSeq.set(r, seq);
      }));
    }
  }

  private isBelow(receiver: string, resource: string, threshold: number | null): boolean {
    const free = this.free.get(receiver);
    return free !== undefined && threshold !== null && (resource === 'energy' ? free.energy : free.bandwidth) < threshold;
  }

  /** A refill below its threshold by the last read, a suspended one, a plan: the only ones that may act. */
  private mayAct(s: WatchedSubscription): boolean {
    return s.kind === 'plan' || s.status === 'suspended' || this.isBelow(s.receiver, s.resource, s.thresholdAmount);
  }

  /** Acts on the subscriptions that may (their receivers read in this pass); a full pass also asks again for undelegations. */
  private async act(all: WatchedSubscription[], full: boolean): Promise<void> {
    const now = this.deps.clock.now();
    const subs = all.filter((s) => this.mayAct(s));
    const orders = await ordersById(this.deps.pool, subs.flatMap((s) => (s.lastOrderId ? [s.lastOrderId] : [])));
    const activeOf = await this.knowActive(subs.map((s) => s.receiver));
    const covered = await this.knowCover(subs.filter((s) => planAction(s, s.lastOrderId ? orders.get(s.lastOrderId) : undefined, now)?.kind === 'charge'));
    const commands: Command[] = [];
    for (const sub of subs) {
      const lastOrder = sub.lastOrderId ? orders.get(sub.lastOrderId) : undefined;
      const command = sub.kind === 'plan' ? this.planCommand(sub, lastOrder, now, activeOf, covered) : this.refillCommand(sub, lastOrder, now, activeOf);
      if (command) commands.push(command);
    }
    for (const left of full ? await plansToUndelegate(this.deps.pool) : []) {
      commands.push({
        type: 'order.close', commandId: derivedId('command', 'plan-undelegate', left.orderId), accountId: left.accountId, issuedAt: now, deadlineAt: null,
        replyTo: null, orderId: left.orderId, step: 'request', reason: 'reclaimed', txs: [], idempotencyKey: null, at: now, replaces: [],
      });
    }
    if (commands.length === 0) return;
    // Crash tests: a watcher killed after seeing a crossing, before or after appending, repeats the same ids.
    crashPoint('subscription-watcher.before-append');
    await this.deps.bus.append(commands);
    crashPoint('subscription-watcher.after-append');
  }

  /** A refill's `subscription.refill` or `subscription.resume`, priced now; null when nothing to do or the receiver is unreadable. */
  private refillCommand(sub: WatchedSubscription, lastOrder: Order | undefined, now: number, activeOf: Map<string, boolean>): Command | null {
    const price = refillPrice(this.deps.prices, sub);
    const action = watchAction(sub, this.free.get(sub.receiver), lastOrder, price, sub.availableSun, now);
    const active = activeOf.get(sub.receiver);
    if (!action || !price || active === undefined) return null;
    const pricing = {
      receiverActive: active, priceSunPerUnit: price.priceSunPerUnit, paySun: price.paySun,
      activateSun: active ? 0n : this.deps.prices.activationFeeSun, durationSeconds: price.durationSeconds, supplier: this.deps.cfg.ORDER_SUPPLIER,
    };
    const meta = { commandId: action.commandId, accountId: sub.accountId, issuedAt: now, deadlineAt: null, replyTo: null };
    return action.kind === 'refill'
      ? { ...meta, type: 'subscription.refill', subscriptionId: sub.id, triggerAvailable: action.free, ...pricing }
      : { ...meta, type: 'subscription.resume', subscriptionId: sub.id, ...pricing };
  }

  /** Whether the supplier's stake covers each due plan's next day now (absent: the chain unreadable). */
  private async knowCover(due: Subscription[]): Promise<Map<string, boolean>> {
    const covered = new Map<string, boolean>();
    if (due.length === 0) return covered;
    const addresses = (this.supplierAddresses ??= supplierAddresses(this.deps.cfg));
    const maxSunPerPart = this.deps.cfg.ORDER_SUPPLIER === 'provider' ? null : (this.deps.cfg.ORDER_MAX_DELEGATION_SUN ?? null);
    for (let i = 0; i < due.length; i += 8) {
      await Promise.all(due.slice(i, i + 8).map(async (sub) => {
        try {
          covered.set(sub.id, await stakeCovers(this.deps.reader, addresses, sub.resource, sub.amount, maxSunPerPart));
        } catch (err) {
          if (!(err instanceof ChainUnavailable)) throw err;
        }
      }));
    }
    return covered;
  }

  /** Whether each receiver of this pass's subscriptions is on chain (absent: unreadable); known-active ones are not read again. */
  private async knowActive(receivers: string[]): Promise<Map<string, boolean>> {
    const activeOf = new Map<string, boolean>();
    const unknown = [...new Set(receivers)].filter((r) => {
      if (this.activeReceivers.has(r)) activeOf.set(r, true);
      return !this.activeReceivers.has(r);
    });
    const limit = this.deps.readConcurrency ?? 32;
    for (let i = 0; i < unknown.length; i += limit) {
      await Promise.all(unknown.slice(i, i + limit).map(async (r) => {
        const active = await this.receiverActive(r);
        if (active === null) return;
        activeOf.set(r, active);
        if (active && this.watched.has(r)) this.activeReceivers.add(r);
      }));
    }
    return activeOf;
  }

  /** A plan's due day (priced at the plan row now) or its pause for an undeliverable day; null when nothing is due. */
  private planCommand(sub: Subscription, lastOrder: Order | undefined, now: number, activeOf: Map<string, boolean>, coveredOf: Map<string, boolean>): Command | null {
    const action = planAction(sub, lastOrder, now);
    if (!action) return null;
    const meta = { commandId: action.commandId, accountId: sub.accountId, issuedAt: now, deadlineAt: null, replyTo: null };
    if (action.kind === 'reserve_exhausted') return { ...meta, type: 'subscription.pause', subscriptionId: sub.id, reason: 'reserve_exhausted', orderId: action.orderId };
    const covered = coveredOf.get(sub.id);
    if (covered === undefined) return null;
    // The pool cannot deliver the day: paused before charging (the day that ends is taken back by the full pass).
    if (!covered && sub.lastOrderId !== null) {
      return {
        ...meta, commandId: derivedId('command', 'sub-reserve-ahead', sub.id, String(action.billingAt)), type: 'subscription.pause', subscriptionId: sub.id,
        reason: 'reserve_exhausted', orderId: sub.lastOrderId,
      };
    }
    const row = this.deps.prices.plans?.find((r) => r.resource === sub.resource);
    const active = activeOf.get(sub.receiver);
    if (!row || active === undefined) return null;
    return {
      ...meta, type: 'subscription.charge', subscriptionId: sub.id, billingAt: action.billingAt, priceSunPerUnit: row.price_sun_per_unit,
      dailyFeeSun: row.price_sun_per_unit * BigInt(sub.amount), receiverActive: active, activateSun: active ? 0n : this.deps.prices.activationFeeSun,
      supplier: this.deps.cfg.ORDER_SUPPLIER,
    };
  }

  /** Whether the receiver exists on chain (a refill to an inactive one pays its activation); null when unreadable. */
  private async receiverActive(address: string): Promise<boolean | null> {
    try {
      return (await this.deps.reader.account(address)).exists;
    } catch (err) {
      if (err instanceof ChainUnavailable) return null;
      throw err;
    }
  }
}

export async function startSubscriptionWatcher(deps: WatcherDeps): Promise<{ stop(): Promise<void> }> {
  const watcher = new SubscriptionWatcher(deps);
  watcher.start();
  return watcher;
}
