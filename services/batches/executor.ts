/**
 * The batch-executor role: turns each queued receiver into ordinary orders, one receiver independent of
 * the others, and completes a batch once every receiver is terminal. Every decision is a command whose id
 * derives from (batch, receiver, step, chunk, attempt), so a restart repeats the same commands and the
 * processor answers them from command_results: no receiver is ever ordered twice.
 */
import { PollingRole } from '../platform/polling-role';
import { createHash } from 'node:crypto';
import { ChainUnavailable } from '../chain/errors';
import { ChainReader } from '../chain/reads';
import { NoSuchContract, readForTransfer, transferFactsFor, type TransferFactsReader } from '../chain/transfer-facts';
import type { TransferRef } from '../domain/estimates';
import type { CommandResult } from '../domain/command-result';
import { errorCatalog } from '../domain/errors';
import { derivedId } from '../domain/ids';
import type { Order } from '../domain/orders/rules';
import { orderCommandFrom } from '../domain/order-command';
import { chargeFor, priceTable, tierSeconds, type DelegatedResource, type PriceRow, type PriceTable, type Tier } from '../domain/pricing';
import { routingFeeTable, type RoutingFeeTable } from '../domain/routing-fee';
import { routingFeeFor } from '../promo/routing-fee-reads';
import type { Clock } from '../platform/clock';
import type { Config } from '../platform/config';
import type { CommandBus, NewCommand } from '../platform/command-bus';
import type { Pool } from '../platform/db/pool';
import { logger } from '../platform/logger';
import { ordersById } from '../orders/reads';
import { accountLimits } from '../domain/account';
import { balancedChunks, bandwidthPlan, clientOrderIdFor, terminalItem, type BandwidthPlan, type Batch, type BatchItem, type ItemFailure } from '../domain/batches/rules';
import type { ItemStepEntry } from '../domain/batches/commands';
import { executorWork, OpenBatchesCache, ordersOfBatches, readOpenBatches } from './store';
import { OrderPacer } from './pacing';
import { openOrders } from '../orders/reads';
import { itemChargedSun, itemStatusIn } from '../domain/batches/view';

export interface BatchExecutorDeps {
  cfg: Config;
  pool: Pool;
  /** A bus that waits for answers (started by the caller). */
  bus: CommandBus;
  clock: Clock;
  chain?: Pick<ChainReader, 'account' | 'bandwidthAvailable' | 'freeNetLimit'>;
  /** Receivers being read or ordered at once across all batches (one whose orders are placed waits for its done step without a slot); default BATCH_EXECUTOR_CONCURRENCY. */
  concurrency?: number;
  /** Orders awaiting delivery past which the executor waits; default BATCH_MAX_OPEN_ORDERS. */
  maxOpenOrders?: number;
}

/** Refused (abandoned at a deadline) commands never apply; the next attempt id is tried, in order, up to this. */
const MAX_ATTEMPTS = 20;
/** Open batches a pass looks at, oldest first. */
const OPEN_BATCHES_READ = 500;
/** Later chunks to a receiver being activated wait until the first order's activation is settled. */
const ACTIVATION_WAIT_MS = 120_000;

export class BatchExecutor {
  /** Receivers picked up and not yet recorded done (never picked twice at once). */
  private readonly running = new Set<string>();
  /** Of those, receivers still being read or ordered: what the concurrency bounds (a receiver whose orders are placed waits for its done wave without a slot). */
  private busy = 0;
  private readonly chain: Pick<ChainReader, 'account' | 'bandwidthAvailable' | 'freeNetLimit'>;
  /** The chain's free daily bandwidth of a new address (a chain parameter): read once. */
  private freeNetLimit: number | undefined;
  private readonly table: PriceTable;
  private readonly routing: RoutingFeeTable;
  private readonly pacer: OrderPacer;
  /** The open batches as last read, each changed row fetched and parsed once. */
  private readonly open = new OpenBatchesCache();
  private stopped = false;
  private loop: PollingRole | undefined;
  /** for_transfer items' simulations and sender reads (contract.md section 11), shared per block. */
  private readonly transfers: TransferFactsReader;

  constructor(private readonly deps: BatchExecutorDeps) {
    this.chain = deps.chain ?? ChainReader.fromConfig(deps.cfg);
    this.transfers = transferFactsFor(ChainReader.fromConfig(deps.cfg));
    this.table = priceTable(deps.cfg.NETWORK, deps.cfg.ORDER_PRICES, deps.cfg.ACTIVATION_FEE_SUN);
    this.routing = routingFeeTable(deps.cfg.NETWORK, deps.cfg.ROUTING_FEE_BPS, deps.cfg.ROUTING_FEE_TIERS);
    this.pacer = new OrderPacer({
      read: () => openOrders(deps.pool), clock: deps.clock, maxOpen: deps.maxOpenOrders ?? deps.cfg.BATCH_MAX_OPEN_ORDERS,
      waitWindowMs: deps.cfg.ORDER_WAIT_WINDOW_MS, everyMs: deps.cfg.CHAIN_POLL_MS,
      targetAgeMs: deps.cfg.BATCH_PACE_TARGET_MS > 0 ? deps.cfg.BATCH_PACE_TARGET_MS : undefined,
    });
  }

  start(): void {
    // A pass cut short by stop() throws Stopped; the loop does not log failures while stopping.
    this.loop = new PollingRole('batch executor', this.deps.cfg.CHAIN_POLL_MS, () => this.tick()).start();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop?.stop();
    while (this.running.size > 0) await sleep(50);
  }

  /** One pass: start what can start, complete what is done. */
  async tick(): Promise<void> {
    const limit = this.deps.concurrency ?? this.deps.cfg.BATCH_EXECUTOR_CONCURRENCY;
    // One listing of the open batches (ids and row versions) per pass; only rows changed since the last are read.
    const work = await executorWork(this.deps.pool, await readOpenBatches(this.deps.pool, this.open, OPEN_BATCHES_READ));
    // With every slot taken (receivers waiting for their answers or for the pacer) nothing can start.
    if (this.busy < limit) {
      for (const batch of work.start) {
        // A batch's free receivers go together: one start command and done commands in waves (runGroup).
        const picked: BatchItem[] = [];
        for (const item of batch.items) {
          if (this.busy >= limit) break;
          if (item.progress !== 'queued' && item.progress !== 'started') continue;
          const key = runKey(batch, item);
          if (this.running.has(key)) continue;
          this.running.add(key);
          this.busy += 1;
          picked.push(item);
        }
        if (picked.length === 0) continue;
        const slots = { held: picked.length };
        void this.runGroup(batch, picked, slots)
          .catch((err) => err instanceof Stopped || logger.warn({ err, batchId: batch.id, receivers: picked.length }, 'batch receivers failed; retried next pass'))
          .finally(() => {
            this.busy -= slots.held;
            picked.forEach((item) => this.running.delete(runKey(batch, item)));
          });
      }
    }
    for (const batch of work.complete) await this.complete(batch);
  }

  private async submit(body: NewCommand, ...idParts: Array<string | number>): Promise<CommandResult>;
  private async submit(body: NewCommand, attempts: { count: number }, ...idParts: Array<string | number>): Promise<CommandResult>;
  private async submit(body: NewCommand, ...rest: Array<string | number | { count: number }>): Promise<CommandResult> {
    const counter = typeof rest[0] === 'object' ? (rest.shift() as { count: number }) : undefined;
    const idParts = rest as Array<string | number>;
    // An attempt refused at its deadline was never applied: the next attempt id is a fresh, equally stable command.
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
      if (counter) counter.count += 1;
      const result = await this.deps.bus.submit(body, undefined, derivedId('command', 'batch', ...idParts, attempt));
      if (result.outcome !== 'refused') return result;
      // Stopping (the processor may be gone too): no further attempt; the next executor repeats the step.
      if (this.stopped) throw new Stopped();
    }
    throw new Error(`command refused ${MAX_ATTEMPTS} times: ${idParts.join('/')}`);
  }

  /**
   * An order command, placed once the pacer has a slot (the delivery path keeps up). A repeat after a
   * crash takes a slot too: it is answered from command_results at once.
   */
  private async placeOrder(body: NewCommand, attempts: { count: number }, ...idParts: Array<string | number>): Promise<CommandResult | null> {
    if (!(await this.pacer.acquire(() => this.stopped))) return null;
    try {
      return await this.submit(body, attempts, ...idParts);
    } finally {
      this.pacer.release();
    }
  }

  /** Whether the receiver is activated, and the bandwidth it can spend (a new address: the free daily allowance it will get). */
  private async readReceiver(address: string): Promise<{ active: boolean; bandwidthFree: number | null }> {
    // The resource read answers for an address on chain only (an account's record holds its resources): one
    // read for an active receiver. An empty answer is confirmed by the account read before the receiver
    // counts as not activated (it then gets the chain's free allowance of a new address).
    const available = await this.chain.bandwidthAvailable(address);
    if (available !== null) return { active: true, bandwidthFree: available };
    if ((await this.chain.account(address)).exists) return { active: true, bandwidthFree: null };
    return { active: false, bandwidthFree: (this.freeNetLimit ??= await this.chain.freeNetLimit()) };
  }

  /**
   * Receivers of one batch, each independent of the others: the queued ones picked up in one `batch.items`
   * start (their chain reads made side by side), then each one's orders placed on its own, and the done
   * steps recorded in waves (whoever finished while the previous wave was on its way goes in the next). A
   * receiver that fails or meets a stop is left `started` and picked up again at a later pass.
   */
  async runGroup(batch: Batch, items: BatchItem[], slots: { held: number }): Promise<void> {
    const free = (n: number) => {
      this.busy -= n;
      slots.held -= n;
    };
    const started = items.filter((i) => i.progress === 'started');
    const queued = items.filter((i) => i.progress === 'queued');
    if (queued.length > 0) started.push(...(await this.startItems(batch, queued)));
    free(items.length - started.length); // cancelled, or not read: nothing more to do with them in this group
    const ready: ItemStepEntry[] = [];
    let wake: (() => void) | undefined;
    let left = started.length;
    for (const item of started) {
      void this.runItem(batch, item)
        .then((entry) => ready.push(entry), (err) => err instanceof Stopped || logger.warn({ err, batchId: batch.id, receiver: item.receiver }, 'batch item failed; retried next pass'))
        .finally(() => {
          left -= 1;
          free(1);
          wake?.();
        });
    }
    while (left > 0 || ready.length > 0) {
      if (ready.length === 0) await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
      const wave = ready.splice(0);
      if (wave.length === 0) continue;
      // A wave not recorded leaves its receivers `started`: picked up again (same order command ids) at a later pass.
      await this.submitItems(batch, 'done', wave).catch((err) => err instanceof Stopped || logger.warn({ err, batchId: batch.id, receivers: wave.length }, 'batch done step failed; retried next pass'));
      for (const e of wave) this.running.delete(runKey(batch, e));
    }
  }

  /** Picks queued receivers up: the chain reads of each (32 receivers at a time), then one start command; answers the items started (not the cancelled). */
  private async startItems(batch: Batch, queued: BatchItem[]): Promise<BatchItem[]> {
    const entries: ItemStepEntry[] = [];
    for (let i = 0; i < queued.length; i += 32) {
      await Promise.all(queued.slice(i, i + 32).map(async (item) => {
        const read = await this.readReceiver(item.receiver).catch((err) => {
          if (err instanceof ChainUnavailable) return null;
          throw err;
        });
        if (read === null) return; // the next pass reads it again
        const chosen = this.chunks(item, read.active);
        const decided = bandwidthPlan(item, 'failure' in chosen ? Number.MAX_SAFE_INTEGER : chosen.maxPerOrder, read.bandwidthFree);
        entries.push({ receiver: item.receiver, receiverActive: read.active, bandwidthPlan: decided });
      }));
    }
    if (entries.length === 0) return [];
    const answer = await this.submitItems(batch, 'start', entries);
    const byReceiver = new Map(queued.map((i) => [i.receiver, i]));
    const out: BatchItem[] = [];
    for (const a of answer) {
      const item = byReceiver.get(a.receiver);
      if (!item || a.progress !== 'started') continue; // cancelled first
      out.push({ ...item, progress: 'started', receiverActive: a.receiver_active, bandwidthPlan: a.bandwidth_plan });
    }
    return out;
  }

  /** One `batch.items` step; its id derives from the batch, the step and the receivers, so a repeat of the same set applies once. */
  private async submitItems(batch: Batch, step: 'start' | 'done', entries: ItemStepEntry[]): Promise<ItemAnswer[]> {
    const receivers = entries.map((e) => e.receiver).sort().join(',');
    const set = createHash('sha256').update(receivers).digest('hex').slice(0, 32);
    const result = await this.submit({ type: 'batch.items', accountId: batch.accountId, batchId: batch.id, step, entries, at: this.deps.clock.now() }, batch.id, 'items', step, set);
    if (result.outcome !== 'applied' || !result.body) throw new Error(`batch.items ${step} not applied: ${result.error?.slug ?? result.outcome}`);
    return result.body.items as ItemAnswer[];
  }

  /** A started receiver's orders (top-up, chunks); answers its done step. */
  private async runItem(batch: Batch, item: BatchItem): Promise<ItemStepEntry> {
    const active = item.receiverActive;
    const plan = item.bandwidthPlan ?? null;
    const attempts = { count: 0 };
    const topUp = plan?.kind === 'top-up' ? await this.topUp(batch, item, plan.amount, active ?? false, attempts) : null;
    // A top-up that carried the activation: the resource orders go to an active receiver once it has landed.
    const activatedByTopUp = !active && topUp?.orderId !== undefined && (await this.activationSettled(topUp.orderId));
    const { orderIds, failure } = await this.placeOrders(batch, item, (active ?? false) || activatedByTopUp, attempts);
    return {
      receiver: item.receiver, orderIds, failure, receiverActive: active,
      bandwidthOrderId: topUp?.orderId ?? null, bandwidthFailure: topUp?.failure ?? null, attempts: attempts.count,
    };
  }

  /** The bandwidth top-up, an ordinary bandwidth order (it carries the activation when the receiver has none). */
  private async topUp(batch: Batch, item: BatchItem, amount: number, active: boolean, attempts: { count: number }): Promise<{ orderId?: string; failure: ItemFailure | null }> {
    const row = this.bandwidthRow(item.tier);
    if (!row) return { failure: failureOf('tier_unavailable', 'No bandwidth tier is on sale for the top-up.') };
    const units = Math.min(Math.max(amount, row.min_amount), row.max_amount);
    const charge = chargeFor(row.price_sun_per_unit, units, active, this.table.activationFeeSun);
    const result = await this.placeOrder(orderCommandFrom({
      accountId: batch.accountId, clientOrderId: item.clientOrderIdPrefix === null ? null : `${item.clientOrderIdPrefix}-${item.receiver}-bandwidth`, idempotencyKey: null,
      quoteId: null, quoteExpiresAt: null, resource: 'bandwidth', amount: units, tier: row.tier, durationSeconds: tierSeconds[row.tier],
      receiver: item.receiver, receiverActive: active, activate: item.activate, maxPriceSun: null,
      priceSunPerUnit: row.price_sun_per_unit, paySun: charge.paySun, activateSun: charge.activateSun, source: 'batch', memo: null,
      supplier: this.deps.cfg.ORDER_SUPPLIER, batchId: batch.id,
    }), attempts, batch.id, item.receiver, 'bandwidth');
    if (result === null) throw new Stopped();
    if (result.outcome === 'applied' && result.body) return { orderId: String(result.body.id), failure: null };
    return { failure: refusalOf(result) };
  }

  /** The item's tier when bandwidth sells in it, else the first bandwidth row on sale. */
  private bandwidthRow(tier: Tier | null): PriceRow | undefined {
    const onSale = this.table.rows.filter((r) => r.resource === 'bandwidth' && r.available);
    return onSale.find((r) => r.tier === tier) ?? onSale[0];
  }

  /** The receiver's orders, chunk by chunk; the first refusal stops it (what was placed stays). */
  private async placeOrders(batch: Batch, item: BatchItem, active: boolean, attempts: { count: number }): Promise<{ orderIds: string[]; failure: ItemFailure | null }> {
    if (item.forTransfer) return this.placeForTransfer(batch, item, item.forTransfer, active, attempts);
    const plan = this.chunks(item, active);
    if ('failure' in plan) return { orderIds: [], failure: plan.failure };
    const orderIds: string[] = [];
    for (const [index, amount] of plan.amounts.entries()) {
      // Only the first chunk activates (and pays for it); the others wait until that activation settled.
      const activates = !active && index === 0;
      if (!active && index > 0 && !(await this.activationSettled(orderIds[0]))) {
        return { orderIds, failure: failureOf('delegation_failed', 'The receiver was not activated; the remaining chunks were not ordered.') };
      }
      const charge = chargeFor(plan.priceSunPerUnit, amount, !activates, this.table.activationFeeSun);
      const paySun = charge.paySun + (await routingFeeFor(this.deps.pool, this.routing, this.deps.cfg.ORDER_SUPPLIER, batch.accountId, charge.paySun, this.deps.clock.now())).feeSun;
      const result = await this.placeOrder(orderCommandFrom({
        accountId: batch.accountId, clientOrderId: clientOrderIdFor(item.clientOrderIdPrefix, item.receiver, index), idempotencyKey: null,
        quoteId: null, quoteExpiresAt: null, resource: item.resource, amount, tier: item.tier, durationSeconds: item.tier ? tierSeconds[item.tier] : null,
        receiver: item.receiver, receiverActive: !activates, activate: item.activate, maxPriceSun: plan.amounts.length === 1 ? item.maxPriceSun : null,
        priceSunPerUnit: plan.priceSunPerUnit, paySun, activateSun: charge.activateSun, source: 'batch', memo: null,
        supplier: this.deps.cfg.ORDER_SUPPLIER, batchId: batch.id,
      }), attempts, batch.id, item.receiver, 'chunk', index);
      if (result === null) throw new Stopped();
      if (result.outcome === 'applied' && result.body) {
        orderIds.push(String(result.body.id));
        continue;
      }
      return { orderIds, failure: refusalOf(result) };
    }
    return { orderIds, failure: null };
  }

  /**
   * A for_transfer item: one energy order, sized by the processor from the transfer's simulation and the
   * receiver's free energy read now (3047 when nothing is short, as POST /v1/orders answers it). A chain
   * outage leaves the receiver `started`, read again at a later pass (the same command id).
   */
  private async placeForTransfer(batch: Batch, item: BatchItem, transfer: TransferRef, active: boolean, attempts: { count: number }): Promise<{ orderIds: string[]; failure: ItemFailure | null }> {
    const row = this.table.rows.find((r) => r.resource === 'energy' && r.tier === item.tier);
    if (!row || !row.available || item.tier === null) return { orderIds: [], failure: failureOf('tier_unavailable', `The tier ${item.tier} is not available for energy.`) };
    let read;
    try {
      read = await readForTransfer(this.transfers, { from: item.receiver, to: transfer.to, amount: BigInt(transfer.amount), token: transfer.token }, {
        minAmount: row.min_amount, maxAmount: Math.min(row.max_amount, accountLimits.max_order_energy),
      });
    } catch (err) {
      if (err instanceof NoSuchContract) return { orderIds: [], failure: failureOf('invalid_request', 'The token is not a contract on this network.') };
      throw err;
    }
    if (read.failure !== null) return { orderIds: [], failure: failureOf('invalid_request', `The transfer would fail: ${read.failure}; renting energy does not help.`) };
    const base = row.price_sun_per_unit * BigInt(read.amount);
    read.facts.routingFeeBps = (await routingFeeFor(this.deps.pool, this.routing, this.deps.cfg.ORDER_SUPPLIER, batch.accountId, base, this.deps.clock.now())).bps;
    const result = await this.placeOrder(orderCommandFrom({
      accountId: batch.accountId, clientOrderId: clientOrderIdFor(item.clientOrderIdPrefix, item.receiver, 0), idempotencyKey: null,
      quoteId: null, quoteExpiresAt: null, resource: 'energy', amount: null, tier: item.tier, durationSeconds: tierSeconds[item.tier],
      receiver: item.receiver, receiverActive: active, activate: item.activate, maxPriceSun: item.maxPriceSun,
      priceSunPerUnit: row.price_sun_per_unit, paySun: 0n, activateSun: active ? 0n : this.table.activationFeeSun, source: 'batch', memo: null,
      supplier: this.deps.cfg.ORDER_SUPPLIER, batchId: batch.id, forTransfer: read.facts,
    }), attempts, batch.id, item.receiver, 'chunk', 0);
    if (result === null) throw new Stopped();
    if (result.outcome === 'applied' && result.body) return { orderIds: [String(result.body.id)], failure: null };
    return { orderIds: [], failure: refusalOf(result) };
  }

  /** Chunk amounts at the price in force now, or why none can be placed (the whole item over max_price_sun). */
  private chunks(item: BatchItem, active: boolean): { amounts: Array<number | null>; priceSunPerUnit: bigint | null; maxPerOrder: number } | { failure: ItemFailure } {
    if (item.resource === 'activation') return { amounts: [null], priceSunPerUnit: null, maxPerOrder: Number.MAX_SAFE_INTEGER };
    const row = this.table.rows.find((r) => r.resource === item.resource && r.tier === item.tier);
    if (!row || !row.available || item.amount === null) return { failure: failureOf('tier_unavailable', `The tier ${item.tier} is not available for ${item.resource}.`) };
    const maxPerOrder = (item.resource as DelegatedResource) === 'energy' ? Math.min(row.max_amount, accountLimits.max_order_energy) : row.max_amount;
    const amounts = balancedChunks(item.amount, row.min_amount, maxPerOrder);
    if (item.maxPriceSun !== null && amounts.length > 1) {
      // The cap is the receiver's, not one chunk's: checked on the whole before any chunk is ordered.
      const total = chargeFor(row.price_sun_per_unit, item.amount, active, this.table.activationFeeSun).totalSun;
      if (total > item.maxPriceSun) return { failure: failureOf('price_above_limit', `The live total ${total} SUN exceeds max_price_sun.`) };
    }
    return { amounts, priceSunPerUnit: row.price_sun_per_unit, maxPerOrder };
  }

  private async activationSettled(orderId: string | undefined): Promise<boolean> {
    if (!orderId) return false;
    const until = Date.now() + ACTIVATION_WAIT_MS;
    while (Date.now() < until && !this.stopped) {
      const order: Order | undefined = (await ordersById(this.deps.pool, [orderId])).get(orderId);
      const tx = order?.allocations.find((a) => a.kind === 'activate');
      if (order?.status === 'failed' || tx?.landed === false) return false;
      if (tx?.landed === true || (order && order.status !== 'allocating' && order.status !== 'created' && order.status !== 'paid')) return true;
      await sleep(this.deps.cfg.CHAIN_POLL_MS);
    }
    return false;
  }

  /** Every receiver done or cancelled: once their orders are terminal too, batch.completed (once: the id is derived). */
  private async complete(batch: Batch): Promise<void> {
    const orders = await ordersOfBatches(this.deps.pool, [batch]);
    const statuses = batch.items.map((i) => itemStatusIn(i, orders));
    if (!statuses.every(terminalItem)) return;
    const charged = batch.items.reduce((sum, i) => sum + itemChargedSun(i, orders), 0n);
    await this.submit({ type: 'batch.complete', accountId: batch.accountId, batchId: batch.id, statuses, chargedSun: charged, at: this.deps.clock.now() }, batch.id, 'complete');
  }
}

interface ItemAnswer {
  receiver: string;
  progress: string | null;
  receiver_active: boolean | null;
  bandwidth_plan: BandwidthPlan | null;
}

const runKey = (batch: Batch, item: { receiver: string }) => `${batch.id}\u0000${item.receiver}`;

/** The executor stopped while a receiver waited for the pacer or a command was refused: it stays `started`, picked up again at the next start. */
class Stopped extends Error {}

/** Why an order command was not applied, as the item's failure. */
function refusalOf(result: CommandResult): ItemFailure {
  const e = result.error;
  return e ? failureOf(e.slug, e.message ?? errorCatalog[e.slug].message) : failureOf('service_unavailable', 'The order could not be placed.');
}

function failureOf(slug: keyof typeof errorCatalog, message: string): ItemFailure {
  return { code: errorCatalog[slug].code, slug, message };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export async function startBatchExecutor(deps: BatchExecutorDeps): Promise<{ stop(): Promise<void> }> {
  const executor = new BatchExecutor(deps);
  executor.start();
  return executor;
}
