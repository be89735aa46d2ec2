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
import { orderStatuses, plansToUndelegate, subscriptionsOfReceivers, watchedSubscriptions, type WatchedSubscription } from './store';
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
  /** Free resources by receiver; bounded by the watched set (receivers no longer watched are dropped each pass). */
  private readonly free = new Map<string, FreeResources>();
  private readonly waker = new Waker();
  private lastHead = -1;
  private lastFullAt = 0;
  private cache: WatchedSubscription[] | undefined;
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
   * One pass: apply new blocks to the receivers they touch, then act. Every watched subscription is read
   * (a full pass) at most every FULL_PASS_MS: new subscriptions, credits, plan days due, resumes. In between,
   * only the subscriptions of the receivers the new blocks named are read again, so 10,000 watched rows are
   * not parsed at every block.
   */
  async tick(): Promise<void> {
    const head = (await this.deps.reader.nowBlock('full')).number;
    const full = this.cache === undefined || performance.now() - this.lastFullAt >= FULL_PASS_MS;
    if (head === this.lastHead && !full) return;
    this.lastHead = head;
    if (full) {
      this.cache = await watchedSubscriptions(this.deps.pool);
      this.lastFullAt = performance.now();
    }
    const watched = new Set((this.cache ?? []).filter((s) => s.kind === 'refill').map((s) => s.receiver));
    for (const r of this.free.keys()) if (!watched.has(r)) this.free.delete(r);
    const touched = await this.followBlocks(watched, head);
    await this.readAll([...watched].filter((r) => !this.free.has(r)));
    await this.act(full ? (this.cache ?? []) : await subscriptionsOfReceivers(this.deps.pool, [...touched]), full);
  }

  private async position(): Promise<number | null> {
    const { rows } = await this.deps.pool.query('SELECT block_number FROM subscription_watcher_position WHERE id = $1', [POSITION_ID]);
    return rows[0] ? Number(rows[0].block_number) : null;
  }

  private async savePosition(block: number): Promise<void> {
    await this.deps.pool.query(
      `INSERT INTO subscription_watcher_position (id, block_number, updated_at) VALUES ($1, $2, $3)
       ON CONFLICT (id) DO UPDATE SET block_number = EXCLUDED.block_number, updated_at = EXCLUDED.updated_at`,
      [POSITION_ID, block, new Date(this.deps.clock.now())],
    );
  }

  /** Applies the blocks after the position; returns the watched receivers they named (now re-read). */
  private async followBlocks(watched: Set<string>, head: number): Promise<Set<string>> {
    const seen = new Set<string>();
    const from = await this.position();
    // First start: nothing before the head matters (every receiver is read directly once anyway).
    if (from === null) {
      await this.savePosition(head);
      return seen;
    }
    for (let n = from + 1; n <= Math.min(head, from + MAX_BLOCKS_PER_PASS); n += 1) {
      const block = await this.deps.reader.blockByNumber(n, 'full');
      if (!block) return seen;
      const touched = [...touchedBy(block)].filter((a) => watched.has(a));
      await this.readAll(touched);
      for (const a of touched) seen.add(a);
      await this.savePosition(n);
      this.applied.push({ block: n, lagMs: this.deps.clock.now() - block.timestamp, reads: touched.length });
      if (this.applied.length > 10_000) this.applied.splice(0, this.applied.length - 10_000);
    }
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

  /** A refill below its threshold by the last read, a suspended one, a plan: the only ones that may act. */
  private mayAct(s: WatchedSubscription): boolean {
    const free = this.free.get(s.receiver);
    const below = free !== undefined && s.thresholdAmount !== null && (s.resource === 'energy' ? free.energy : free.bandwidth) < s.thresholdAmount;
    return s.kind === 'plan' || s.status === 'suspended' || below;
  }

  private async act(all: WatchedSubscription[], full: boolean): Promise<void> {
    const now = this.deps.clock.now();
    const subs = all.filter((s) => this.mayAct(s));
    const orders = await orderStatuses(this.deps.pool, subs.flatMap((s) => (s.lastOrderId ? [s.lastOrderId] : [])));
    const commands: Command[] = [];
    for (const sub of subs) {
      if (sub.kind === 'plan') {
        const plan = await this.planCommand(sub, sub.lastOrderId ? orders.get(sub.lastOrderId) : undefined, now);
        if (plan) commands.push(plan);
        continue;
      }
      const price = refillPrice(this.deps.prices, sub);
      const lastOrder = sub.lastOrderId ? orders.get(sub.lastOrderId) : undefined;
      let action = watchAction(sub, this.free.get(sub.receiver), lastOrder, price, sub.availableSun, now);
      if (action?.kind === 'refill') {
        // Confirmed by a fresh read: the last refill may have landed in a block this watcher has not applied yet.
        await this.readAll([sub.receiver]);
        action = watchAction(sub, this.free.get(sub.receiver), lastOrder, price, sub.availableSun, now);
      }
      if (!action || !price) continue;
      const active = await this.receiverActive(sub.receiver);
      if (active === null) continue;
      const pricing = {
        receiverActive: active, priceSunPerUnit: price.priceSunPerUnit, paySun: price.paySun,
        activateSun: active ? 0n : this.deps.prices.activationFeeSun, durationSeconds: price.durationSeconds, supplier: this.deps.cfg.ORDER_SUPPLIER,
      };
      const meta = { commandId: action.commandId, accountId: sub.accountId, issuedAt: now, deadlineAt: null, replyTo: null };
      commands.push(action.kind === 'refill'
        ? { ...meta, type: 'subscription.refill', subscriptionId: sub.id, triggerAvailable: action.free, ...pricing }
        : { ...meta, type: 'subscription.resume', subscriptionId: sub.id, ...pricing });
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

  /** A plan's due day (priced at the plan row now) or its pause for an undeliverable day; null when nothing is due. */
  private async planCommand(sub: Subscription, lastOrder: Order | undefined, now: number): Promise<Command | null> {
    const action = planAction(sub, lastOrder, now);
    if (!action) return null;
    const meta = { commandId: action.commandId, accountId: sub.accountId, issuedAt: now, deadlineAt: null, replyTo: null };
    if (action.kind === 'reserve_exhausted') return { ...meta, type: 'subscription.pause', subscriptionId: sub.id, reason: 'reserve_exhausted', orderId: action.orderId };
    const row = this.deps.prices.plans?.find((r) => r.resource === sub.resource);
    const active = row ? await this.receiverActive(sub.receiver) : null;
    if (!row || active === null) return null;
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
