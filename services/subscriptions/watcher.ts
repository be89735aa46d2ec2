/**
 * The subscription-watcher role: follows the chain block by block from a position checkpointed in
 * PostgreSQL, keeps the free energy and bandwidth of every watched receiver in memory, and re-reads a
 * receiver only when a block's transactions name it (or when it has never been read: a new subscription,
 * or a restart). A crossing below threshold_amount appends one `subscription.refill`; a suspension whose
 * cause cleared appends one `subscription.resume`. Both ids derive from the subscription's state, so a
 * watcher killed between seeing a crossing and appending repeats the very same command after restart.
 */
import { ChainUnavailable } from '../chain/errors';
import type { ChainReader } from '../chain/reads';
import type { Command } from '../domain/commands';
import { derivedId } from '../domain/ids';
import type { Order } from '../domain/orders';
import type { PriceTable } from '../domain/pricing';
import type { Clock } from '../platform/clock';
import type { Config } from '../platform/config';
import type { CommandBus } from '../platform/command-bus';
import type { Pool } from '../platform/db/pool';
import { crashPoint } from '../platform/chaos';
import { logger } from '../platform/logger';
import { Waker } from '../platform/waker';
import type { Subscription } from './rules';
import {
  orderStatuses, plansToUndelegate, subscriptionsOfReceivers, subscriptionsThatMayAct, watchedThresholds, type WatchedSubscription, type WatchedThreshold,
} from './store';
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
/** Blocks applied per pass at most, so a watcher far behind still checks its subscriptions regularly. */
const MAX_BLOCKS_PER_PASS = 20;
/** Every watched subscription read again at most this often (real ms); in between, only those of touched receivers. */
const FULL_PASS_MS = 3000;

export class SubscriptionWatcher {
  /** Free resources by receiver; bounded by the watched set (receivers no longer watched are dropped each full pass). */
  private readonly free = new Map<string, FreeResources>();
  /** Receivers seen on chain (an account, once created, stays): their refills pay no activation and need no read. */
  private readonly activeReceivers = new Set<string>();
  private readonly waker = new Waker();
  private lastHead = -1;
  private lastFullAt = 0;
  /** Refill receivers watched with their thresholds, as of the last full pass. */
  private thresholds: WatchedThreshold[] | undefined;
  private watched = new Set<string>();
  /** Whether each receiver of the current pass's subscriptions is on chain (absent: unreadable). */
  private activeOf = new Map<string, boolean>();
  /** Whether the stake covers the next day of each plan due in the current pass (absent: unreadable). */
  private covered = new Map<string, boolean>();
  /** The supplier's stake addresses, worked out when a plan is first due (a watcher of refills only needs no pool keys). */
  private supplierAddresses: string[] | undefined;
  private position: number | null | undefined;
  private loop: Promise<void> | undefined;
  /** Blocks applied and their lag (ms from block time to applied), for the bench; the newest 10,000. */
  readonly applied: Array<{ block: number; lagMs: number; reads: number }> = [];

  constructor(private readonly deps: WatcherDeps) {}

  start(): void {
    this.loop = (async () => {
      while (this.waker.running) {
        await this.tick().catch((err) => logger.warn({ err }, 'subscription watcher pass failed; retrying'));
        await this.waker.sleep(this.deps.cfg.CHAIN_POLL_MS);
      }
    })();
  }

  async stop(): Promise<void> {
    this.waker.stop();
    await this.loop;
  }

  /**
   * One pass: apply new blocks to the receivers they touch, then act on those receivers' subscriptions only
   * (work in proportion to the touched receivers, not the watched ones). A full pass, at most every
   * FULL_PASS_MS, reads the watched receivers' thresholds (three columns) and only the subscriptions that may
   * act: refills below their threshold by the last read (new ones read first), suspended ones, plans.
   */
  async tick(): Promise<void> {
    const head = (await this.deps.reader.nowBlock('full')).number;
    const full = this.thresholds === undefined || performance.now() - this.lastFullAt >= FULL_PASS_MS;
    if (head === this.lastHead && !full) return;
    this.lastHead = head;
    if (full) {
      this.thresholds = await watchedThresholds(this.deps.pool);
      this.lastFullAt = performance.now();
      this.watched = new Set(this.thresholds.map((t) => t.receiver));
      for (const r of this.free.keys()) if (!this.watched.has(r)) this.free.delete(r);
      for (const r of this.activeReceivers) if (!this.watched.has(r)) this.activeReceivers.delete(r);
    }
    const touched = await this.followBlocks(head);
    if (!full) {
      await this.act(await subscriptionsOfReceivers(this.deps.pool, [...touched]), false);
      return;
    }
    const unread = [...this.watched].filter((r) => !this.free.has(r));
    await this.readAll(unread);
    // Below by a read older than this pass: read again before acting (the last refill may have landed since).
    const fresh = new Set([...touched, ...unread]);
    const below = [...new Set((this.thresholds ?? []).filter((t) => this.isBelow(t.receiver, t.resource, t.thresholdAmount)).map((t) => t.receiver))];
    await this.readAll(below.filter((r) => !fresh.has(r)));
    await this.act(await subscriptionsThatMayAct(this.deps.pool, below), true);
  }

  private async savePosition(block: number): Promise<void> {
    await this.deps.pool.query(
      `INSERT INTO subscription_watcher_position (id, block_number, updated_at) VALUES ($1, $2, $3)
       ON CONFLICT (id) DO UPDATE SET block_number = EXCLUDED.block_number, updated_at = EXCLUDED.updated_at`,
      [POSITION_ID, block, new Date(this.deps.clock.now())],
    );
    this.position = block;
  }

  /** Applies the blocks after the position; returns the watched receivers they named (now re-read). */
  private async followBlocks(head: number): Promise<Set<string>> {
    const seen = new Set<string>();
    // Read once; afterwards this watcher is the only writer of its position.
    if (this.position === undefined) {
      const { rows } = await this.deps.pool.query('SELECT block_number FROM subscription_watcher_position WHERE id = $1', [POSITION_ID]);
      this.position = rows[0] ? Number(rows[0].block_number) : null;
    }
    const from = this.position;
    // First start: nothing before the head matters (every receiver is read directly once anyway).
    if (from === null) {
      await this.savePosition(head);
      return seen;
    }
    const last = Math.min(head, from + MAX_BLOCKS_PER_PASS);
    let applied = from;
    for (let n = from + 1; n <= last; n += 1) {
      const block = await this.deps.reader.blockByNumber(n, 'full');
      if (!block) break;
      const named = touchedBy(block);
      for (const tx of block.transactions) if (tx.owner && this.watched.has(tx.owner)) this.activeReceivers.add(tx.owner);
      const touched = [...named].filter((a) => this.watched.has(a));
      await this.readAll(touched);
      for (const a of touched) seen.add(a);
      applied = n;
      this.applied.push({ block: n, lagMs: this.deps.clock.now() - block.timestamp, reads: touched.length });
      if (this.applied.length > 10_000) this.applied.splice(0, this.applied.length - 10_000);
    }
    if (applied > from) await this.savePosition(applied);
    return seen;
  }

  private async readAll(receivers: string[]): Promise<void> {
    const limit = this.deps.readConcurrency ?? 32;
    for (let i = 0; i < receivers.length; i += limit) {
      await Promise.all(receivers.slice(i, i + limit).map(async (r) => {
        const raw = await this.deps.reader.call('full', 'getaccountresource', { address: r });
        this.free.set(r, freeOf(raw));
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
    const orders = await orderStatuses(this.deps.pool, subs.flatMap((s) => (s.lastOrderId ? [s.lastOrderId] : [])));
    await this.knowActive(subs.map((s) => s.receiver));
    await this.knowCover(subs.filter((s) => planAction(s, s.lastOrderId ? orders.get(s.lastOrderId) : undefined, now)?.kind === 'charge'));
    const commands: Command[] = [];
    for (const sub of subs) {
      const lastOrder = sub.lastOrderId ? orders.get(sub.lastOrderId) : undefined;
      const command = sub.kind === 'plan' ? this.planCommand(sub, lastOrder, now) : this.refillCommand(sub, lastOrder, now);
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
  private refillCommand(sub: WatchedSubscription, lastOrder: Order | undefined, now: number): Command | null {
    const price = refillPrice(this.deps.prices, sub);
    const action = watchAction(sub, this.free.get(sub.receiver), lastOrder, price, sub.availableSun, now);
    const active = this.activeOf.get(sub.receiver);
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
  private async knowCover(due: Subscription[]): Promise<void> {
    this.covered = new Map();
    if (due.length === 0) return;
    const addresses = (this.supplierAddresses ??= supplierAddresses(this.deps.cfg));
    const maxSunPerPart = this.deps.cfg.ORDER_SUPPLIER === 'provider' ? null : (this.deps.cfg.ORDER_MAX_DELEGATION_SUN ?? null);
    for (let i = 0; i < due.length; i += 8) {
      await Promise.all(due.slice(i, i + 8).map(async (sub) => {
        try {
          this.covered.set(sub.id, await stakeCovers(this.deps.reader, addresses, sub.resource, sub.amount, maxSunPerPart));
        } catch (err) {
          if (!(err instanceof ChainUnavailable)) throw err;
        }
      }));
    }
  }

  /** Whether each receiver of this pass's subscriptions is on chain (absent: unreadable); known-active ones are not read again. */
  private async knowActive(receivers: string[]): Promise<void> {
    this.activeOf = new Map();
    const unknown = [...new Set(receivers)].filter((r) => {
      if (this.activeReceivers.has(r)) this.activeOf.set(r, true);
      return !this.activeReceivers.has(r);
    });
    const limit = this.deps.readConcurrency ?? 32;
    for (let i = 0; i < unknown.length; i += limit) {
      await Promise.all(unknown.slice(i, i + limit).map(async (r) => {
        const active = await this.receiverActive(r);
        if (active === null) return;
        this.activeOf.set(r, active);
        if (active && this.watched.has(r)) this.activeReceivers.add(r);
      }));
    }
  }

  /** A plan's due day (priced at the plan row now) or its pause for an undeliverable day; null when nothing is due. */
  private planCommand(sub: Subscription, lastOrder: Order | undefined, now: number): Command | null {
    const action = planAction(sub, lastOrder, now);
    if (!action) return null;
    const meta = { commandId: action.commandId, accountId: sub.accountId, issuedAt: now, deadlineAt: null, replyTo: null };
    if (action.kind === 'reserve_exhausted') return { ...meta, type: 'subscription.pause', subscriptionId: sub.id, reason: 'reserve_exhausted', orderId: action.orderId };
    const covered = this.covered.get(sub.id);
    if (covered === undefined) return null;
    // The pool cannot deliver the day: paused before charging (the day that ends is taken back by the full pass).
    if (!covered && sub.lastOrderId !== null) {
      return {
        ...meta, commandId: derivedId('command', 'sub-reserve-ahead', sub.id, String(action.billingAt)), type: 'subscription.pause', subscriptionId: sub.id,
        reason: 'reserve_exhausted', orderId: sub.lastOrderId,
      };
    }
    const row = this.deps.prices.plans?.find((r) => r.resource === sub.resource);
    const active = this.activeOf.get(sub.receiver);
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
