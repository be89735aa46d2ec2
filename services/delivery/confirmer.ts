/**
 * The confirmer role. An allocated order is settled (`order.settle`) once every stored hash is in a
 * solidified block with SUCCESS and carries what the order expects (owner, receiver, resource, stake; the
 * transfer's receiver and amount for an activation), and the pool address's delegated balance to the
 * receiver (getdelegatedresourcev2) covers what every staying order holds there plus this order's part
 * (a pass's settlements of one account go in one `order.settlements`, each entry decided alone).
 * A hash that landed with other content counts as failed: the order is never confirmed on it. When the wait window is over and the hashes still
 * missing can no longer land (failed on chain, or the head is past their expiration), it is settled with
 * what landed: partial with the pro-rata refund, or failed (5002; 5005 when its activation did not land)
 * when nothing did. An order nobody could allocate fails at the end of the window too (5004). A settled
 * order is `confirmed`; the processor's follow-up starts its rental (`active`). Also finishes closes (`order.close` landed) once every
 * undelegation of an expiring or reclaimed order is in a solidified block. Command ids derive from the
 * order, so a repeat after a crash applies nothing twice.
 */
import { SUN_PER_TRX, unitsFor } from '../chain/allocation';
import { ChainReader, MAX_BLOCK_RANGE, type ChainTx } from '../chain/reads';
import { expirationOf } from '../chain/writes';
import type { Command, SettlementEntry } from '../domain/commands';
import { derivedId } from '../domain/ids';
import type { Allocation, Order } from '../domain/orders/rules';
import { logger } from '../platform/logger';
import { stakeKey } from '../orders/open-stake';
import { chainResource } from '../chain/suppliers';
import { PollingRole } from '../platform/polling-role';
import { groupPerAccount } from './account-groups';
import { crashPoint } from '../platform/chaos';
import { WorkListCache } from '../orders/work-lists';
import { storeOf, type ChainRoleDeps } from './chain-deps';
import { recordOrderSpans } from './order-spans';
import type { DeliveryStore } from './store';

export interface ConfirmerDeps extends ChainRoleDeps {
  reader?: ChainReader;
}

type TxState = 'landed' | 'failed' | 'pending';

/** Allocating orders checked at the same time (each reads a few transactions and one delegated balance). */
const ORDERS_AT_ONCE = 8;
/**
 * Real ms before an order this process appended a settle for is settled again while it is still awaiting
 * delivery: the log acknowledged the settle, so a repeat only covers one lost in between, not every pass of
 * the processor's lag (each repeat read the staying orders' stake and the delegated balances again).
 */
const RESETTLE_AFTER_MS = 5_000;
/** Solidified blocks whose transaction ids are kept (and how far behind a pass may be to read blocks). */
const SOLID_KEPT_BLOCKS = 300;

export class Confirmer {
  private readonly reader: ChainReader;
  /**
   * Final answers about transactions (solidified), so each is read until it lands or fails. Bounded: kept
   * only for the transactions of orders still in a work list (allocating or closing), trimmed every pass.
   */
  private readonly known = new Map<string, TxState>();
  /** Transactions of the orders read in the current pass. */
  private live = new Set<string>();
  /** Transaction ids in the solidified blocks read (scanSolid), with their block number; the last read. */
  private readonly solidSeen = new Map<string, number>();
  private solidTo: number | null = null;
  /** Transactions (order:tx) read as pending after a scan, bounded like `known`. */
  private readonly readPending = new Set<string>();
  /**
   * Transactions of open orders as the solidified blocks read hold them (scanSolid), trimmed with
   * `solidSeen`: a transaction found there is final without a read of its own.
   */
  private readonly solidTxs = new Map<string, ChainTx>();
  /** Owners (order_tx_ids) of this pass's transactions found in `solidTxs`, read in one query. */
  private owners = new Map<string, string>();
  /** The work lists read every pass, each changed row fetched and parsed once. */
  private readonly awaiting = new WorkListCache();
  private readonly closingOrders = new WorkListCache();
  /**
   * Delegated balances (head state) read this pass, per pool address, receiver and resource: orders of one
   * receiver settled in one pass check against one read, as they would against reads a moment apart.
   */
  private delegatedReads = new Map<string, Promise<bigint>>();
  /** Orders this process appended a settle for, with when (real ms); bounded by the work list. */
  private readonly settledAt = new Map<string, number>();
  /** Settles of this pass, remembered once appended. */
  private settling: string[] = [];
  /**
   * Each open order as last evaluated without a result, with the solidified head then: while the order is
   * the same row (WorkListCache hands back the same object) and no solidified block came, a pass learns
   * nothing new about it (its transactions land only in new blocks) until its window is over.
   */
  private readonly evaluated = new Map<string, { order: Order; solid: number | null }>();

  private readonly store: DeliveryStore;

  constructor(private readonly deps: ConfirmerDeps) {
    this.reader = deps.reader ?? ChainReader.fromConfig(deps.cfg);
    this.store = storeOf(deps);
  }

  /** One pass; false when both its work lists were empty (PollingRole.idleBackOff). */
  async tick(): Promise<boolean> {
    const started = Date.now();
    this.live = new Set();
    this.delegatedReads = new Map();
    this.settling = [];
    const commands = [...this.grouped(await this.settle()), ...(await this.closes())];
    this.trim();
    if (commands.length > 0) await this.deps.bus.append(commands);
    crashPoint('confirmer.after-append');
    const at = Date.now();
    for (const id of this.settling) this.settledAt.set(id, at);
    await recordOrderSpans(this.store, 'confirmer settle', this.settling, started, at);
    // The caches hold exactly the rows each list answered this pass.
    return this.awaiting.rows.size + this.closingOrders.rows.size > 0;
  }

  /**
   * The pass's settlements, one `order.settlements` per account (applied on the account's partition, each
   * entry decided alone). Each entry keeps the derived id of the `order.settle` it stands for (its journals
   * and events); the group's id derives from the account and its orders, so a repeat of the same
   * settlements (RESETTLE_AFTER_MS) is the same command: the first decision stands, as with the per-order id.
   */
  private grouped(settles: Command[]): Command[] {
    const now = this.deps.clock.now();
    const entries = settles.flatMap((c) => {
      if (c.type !== 'order.settle') return [];
      const entry: SettlementEntry = { orderId: c.orderId, landedTxIds: c.landedTxIds, deliveredAt: c.deliveredAt, ...(c.strandedTxIds ? { strandedTxIds: c.strandedTxIds } : {}) };
      return [{ accountId: c.accountId, entry }];
    });
    return groupPerAccount('order-settlements', entries).map((g) => ({ type: 'order.settlements', ...g, issuedAt: now, deadlineAt: null, replyTo: null }));
  }

  /** Drops the answers about transactions of orders no longer in a work list (settled, failed, closed). */
  private trim(): void {
    for (const key of this.known.keys()) if (!this.live.has(key)) this.known.delete(key);
    for (const key of this.readPending) if (!this.live.has(key)) this.readPending.delete(key);
  }

  /** Entries of the transaction-state cache (for tests). */
  get cachedStates(): number {
    return this.known.size;
  }

  /**
   * Reads the solidified blocks since the last pass (their transaction ids only) into `solidSeen`. True when
   * every solidified block after the one `solidTo` named before this pass is read (or, at the first pass
   * or far behind, `solidTo` is set to the solidified head read now, before any transaction is): then a
   * transaction read as pending in an earlier pass and in none of these blocks is still pending. False
   * when the blocks could not be read: every transaction is then read on its own.
   */
  private async scanSolid(wanted: ReadonlySet<string>): Promise<boolean> {
    try {
      const head = await this.reader.solidifiedBlockNumber();
      if (this.solidTo === null || head - this.solidTo > SOLID_KEPT_BLOCKS) {
        this.solidSeen.clear();
        this.solidTxs.clear();
        this.readPending.clear();
        this.solidTo = head;
        return true;
      }
      while (this.solidTo < head) {
        const { ids, last, txs } = await this.reader.blockTxIds(this.solidTo + 1, Math.min(head, this.solidTo + MAX_BLOCK_RANGE) + 1, 'solid', wanted);
        if (last === null) throw new Error(`solidified block ${this.solidTo + 1} not served`);
        for (const id of ids) this.solidSeen.set(id, last);
        for (const [id, tx] of txs ?? []) this.solidTxs.set(id, tx);
        this.solidTo = last;
      }
      for (const [id, n] of this.solidSeen) {
        if (n > head - SOLID_KEPT_BLOCKS) continue;
        this.solidSeen.delete(id);
        this.solidTxs.delete(id);
      }
      return true;
    } catch (err) {
      logger.warn({ err: (err as Error).message }, 'confirmer: solidified blocks not read; reading each transaction');
      this.solidTo = null;
      return false;
    }
  }

  /**
   * Final state of a transaction; `expect` (null for undelegations) says what a landed one must carry.
   * With `scanned` (scanSolid this pass), one read as pending in an earlier pass and in none of the
   * solidified blocks read since is pending without another read.
   */
  private async state(orderId: string, txId: string, expect: ((tx: ChainTx) => string | null) | null, scanned = false): Promise<TxState> {
    const key = `${orderId}:${txId}`;
    const known = this.known.get(key);
    if (known) return known;
    if (scanned && this.readPending.has(key) && !this.solidSeen.has(txId)) return 'pending';
    // In a solidified block read this pass or before (scanSolid): final, as a read of its own would find it.
    const tx = this.solidTxs.get(txId) ?? (await this.reader.transaction(txId, 'solid'));
    if (!tx) {
      if (scanned) this.readPending.add(key);
      return 'pending';
    }
    // Only a transaction this order itself stored can deliver it (order_tx_ids: one owner per id).
    const owner = this.owners.has(txId) ? (this.owners.get(txId) as string) : ((await this.store.txOwners([txId])).get(txId) ?? null);
    const wrong = tx.contractRet !== 'SUCCESS' ? `result ${tx.contractRet}` : owner !== orderId ? `stored by ${owner ?? 'no order'}` : expect ? expect(tx) : null;
    if (wrong && tx.contractRet === 'SUCCESS') logger.error({ orderId, txId, wrong }, 'confirmer: a hash of this order landed but does not deliver it; never confirmed on it');
    const state: TxState = wrong ? 'failed' : 'landed';
    this.known.set(`${orderId}:${txId}`, state);
    return state;
  }

  private async states(orderId: string, txIds: string[], expect: Array<((tx: ChainTx) => string | null) | null> = [], scanned = false): Promise<TxState[]> {
    for (const t of txIds) this.live.add(`${orderId}:${t}`);
    const out: TxState[] = [];
    for (let i = 0; i < txIds.length; i += 16) out.push(...(await Promise.all(txIds.slice(i, i + 16).map((t, j) => this.state(orderId, t, expect[i + j] ?? null, scanned)))));
    return out;
  }

  private meta(order: Order, step: string) {
    return { commandId: derivedId('command', step, order.id), accountId: order.accountId, issuedAt: this.deps.clock.now(), deadlineAt: null, replyTo: null };
  }

  private settleCommand(order: Order, landed: string[], stranded: string[] = []): Command {
    return {
      ...this.meta(order, 'order-settle'), type: 'order.settle', orderId: order.id, landedTxIds: landed, deliveredAt: this.deps.clock.now(),
      ...(stranded.length > 0 ? { strandedTxIds: stranded } : {}),
    };
  }

  /**
   * What the chain must show for one allocation: a delegation from `from` to the receiver of exactly its
   * stake and resource, earning at least its units at the order's ratio; an activation transfer of its SUN
   * from `from` to the receiver. Null when it matches, else what differs.
   */
  private expectation(order: Order, a: Allocation): (tx: ChainTx) => string | null {
    return (tx) => {
      if (a.kind === 'activate') {
        if (tx.type !== 'TransferContract' || tx.owner !== a.from || tx.to !== order.receiver || tx.amountSun !== a.sun) return `transfer ${tx.owner}->${tx.to} ${tx.amountSun}`;
        return null;
      }
      if (tx.type !== 'DelegateResourceContract' || tx.owner !== a.from || tx.receiver !== order.receiver || tx.resource !== chainResource(order) || tx.balanceSun !== a.sun) {
        return `${tx.type} ${tx.owner}->${tx.receiver} ${tx.resource} ${tx.balanceSun}`;
      }
      if (order.ratio && unitsFor(a.sun / SUN_PER_TRX, order.ratio) < a.amount) return `stake ${a.sun} earns less than ${a.amount} units`;
      return null;
    };
  }

  /**
   * Per pool address, the receiver's delegated balance from it (head state) covers what every staying
   * order holds there plus these landed delegations of the order.
   */
  private async covered(order: Order, delegations: Allocation[], staying: () => Promise<Map<string, bigint>>): Promise<boolean> {
    if (delegations.length === 0) return true;
    const resource = chainResource(order);
    const need = new Map<string, bigint>();
    for (const a of delegations) need.set(a.from, (need.get(a.from) ?? 0n) + a.sun);
    for (const [from, sun] of need) {
      const expected = sun + ((await staying()).get(stakeKey(from, order.receiver, resource)) ?? 0n);
      const key = `${from}:${order.receiver}:${resource}`;
      let reading = this.delegatedReads.get(key);
      if (!reading) this.delegatedReads.set(key, (reading = this.reader.delegated(from, order.receiver, 'full').then((d) => d[resource])));
      const onChain = await reading;
      if (onChain < expected) {
        logger.warn({ orderId: order.id, from, receiver: order.receiver, onChain: String(onChain), expected: String(expected) }, 'confirmer: delegated balance does not cover the open orders');
        return false;
      }
    }
    return true;
  }

  private async settle(): Promise<Command[]> {
    const { clock } = this.deps;
    const now = clock.now();
    const orders = await this.store.workList('allocating', now, 500, this.awaiting);
    // "Can no longer land" is judged against the newest SOLIDIFIED block, read BEFORE the transactions: states
    // are read from the solidified view, and a transaction in a head block not yet solidified is still pending
    // there. With the head's time (or a solid head read after the states) an order failed while its delegation
    // was landing, and that stake was then delegated to no open order (seen under load in batches/hundred).
    const solidHead = orders.some((o) => o.allocations.length > 0 && this.windowOver(o, now)) ? await this.reader.nowBlock('solid') : null;
    const headOnce = async () => solidHead ?? this.reader.nowBlock('solid');
    // What the staying orders hold, for every receiver of the pass in one query (order_stake less the orders
    // leaving: no scan of the staying ones), read on first need. The orders settled here are awaiting
    // delivery, which openStake never counts, so leaving each out (as a per-order read did) changes nothing.
    let staying: Promise<Map<string, bigint>> | undefined;
    const stayingOnce = () => (staying ??= this.store.openStake({ receivers: [...new Set(orders.map((o) => o.receiver))], leavingAt: now }));
    // An order past its window with no set applied fails (5004) only when no set is stored for it either:
    // a stored set is on its way to the processor (the broadcaster appends it again until applied) and may
    // have been broadcast before it is applied (Broadcaster.sendAhead); it is settled once applied.
    const unallocated = orders.filter((o) => o.allocations.length === 0 && this.windowOver(o, now)).map((o) => o.id);
    const signed = await this.store.storedCommands(unallocated, 'allocate');
    // Orders are independent: ORDERS_AT_ONCE of them read the chain at the same time.
    const out: Array<Command | null> = [];
    const open = orders.filter((o) => !signed.has(o.id));
    // Which transactions are in a solidified block: from the blocks since the last pass, not a read per
    // pending transaction every pass.
    const wanted = new Set(open.flatMap((o) => o.allocations.map((a) => a.txId)));
    const scanned = open.length > 0 && (await this.scanSolid(wanted));
    const due = this.due(open, now, scanned);
    await this.readOwners(due);
    for (let i = 0; i < due.length; i += ORDERS_AT_ONCE) {
      const slice = due.slice(i, i + ORDERS_AT_ONCE);
      const results = await Promise.all(slice.map((o) => this.settleOne(o, now, headOnce, stayingOnce, scanned)));
      slice.forEach((o, j) => {
        if (results[j]) this.settling.push(o.id);
        else this.evaluated.set(o.id, { order: o, solid: scanned ? this.solidTo : null });
      });
      out.push(...results);
    }
    return out.filter((c): c is Command => c !== null);
  }

  /**
   * The open orders a pass evaluates: not those settled by this process a moment ago (RESETTLE_AFTER_MS), nor
   * those unchanged since a pass that found nothing, with no solidified block since, inside their window.
   * The skipped keep their cached transaction states (`live`).
   */
  private due(open: Order[], now: number, scanned: boolean): Order[] {
    const ids = new Set(open.map((o) => o.id));
    for (const id of this.settledAt.keys()) if (!ids.has(id)) this.settledAt.delete(id);
    for (const id of this.evaluated.keys()) if (!ids.has(id)) this.evaluated.delete(id);
    const realNow = Date.now();
    return open.filter((o) => {
      const settled = this.settledAt.get(o.id);
      const last = this.evaluated.get(o.id);
      const skip = (settled !== undefined && realNow - settled < RESETTLE_AFTER_MS)
        || (scanned && !this.windowOver(o, now) && last !== undefined && last.order === o && last.solid !== null && last.solid === this.solidTo);
      if (skip) for (const a of o.allocations) this.live.add(`${o.id}:${a.txId}`);
      return !skip;
    });
  }

  /** The owners of the open orders' transactions found in solidified blocks and not final yet: one query a pass. */
  private async readOwners(open: Order[]): Promise<void> {
    this.owners = new Map();
    const ids = open.flatMap((o) => o.allocations.filter((a) => this.solidTxs.has(a.txId) && !this.known.has(`${o.id}:${a.txId}`)).map((a) => a.txId));
    if (ids.length === 0) return;
    this.owners = await this.store.txOwners(ids);
  }

  private windowOver(order: Order, now: number): boolean {
    return now - order.createdAt > this.deps.cfg.ORDER_WAIT_WINDOW_MS;
  }

  private async settleOne(
    order: Order, now: number, head: () => Promise<{ timestamp: number }>, staying: () => Promise<Map<string, bigint>>, scanned: boolean,
  ): Promise<Command | null> {
    const windowOver = this.windowOver(order, now);
    if (order.allocations.length === 0) return windowOver ? this.settleCommand(order, []) : null;
    // Past the window every transaction not known final is read: the failure below rests on real reads.
    const states = await this.states(order.id, order.allocations.map((a) => a.txId), order.allocations.map((a) => this.expectation(order, a)), scanned && !windowOver);
    const landed = order.allocations.filter((_, i) => states[i] === 'landed');
    const allLanded = landed.length === order.allocations.length;
    if (allLanded && (await this.covered(order, landed.filter((a) => a.kind === 'delegate'), staying))) return this.settleCommand(order, landed.map((a) => a.txId));
    if (!windowOver) return null;
    const headTimestamp = (await head()).timestamp;
    const hopeless = allLanded || order.allocations.every((a, i) => states[i] !== 'pending' || headTimestamp > expirationOf(a.signedTx));
    if (!hopeless) return null;
    // Past the window, what landed counts only if the chain covers it; else the order fails and is refunded,
    // and its delegations that did land are named stranded: the scheduler takes that stake back by itself.
    const delegations = landed.filter((a) => a.kind === 'delegate');
    if (await this.covered(order, delegations, staying)) return this.settleCommand(order, landed.map((a) => a.txId));
    return this.settleCommand(order, landed.filter((a) => a.kind !== 'delegate').map((a) => a.txId), delegations.map((a) => a.txId));
  }

  private async closes(): Promise<Command[]> {
    const { clock } = this.deps;
    const closing = await this.store.workList('closing', clock.now(), 500, this.closingOrders);
    const out: Array<Command | null> = [];
    for (let i = 0; i < closing.length; i += ORDERS_AT_ONCE) {
      out.push(...(await Promise.all(closing.slice(i, i + ORDERS_AT_ONCE).map(async (order): Promise<Command | null> => {
        const states = await this.states(order.id, order.undelegations.map((u) => u.txId));
        if (!states.every((s) => s === 'landed')) return null;
        return {
          ...this.meta(order, 'order-close-landed'), type: 'order.close', orderId: order.id, step: 'landed',
          reason: order.closeReason ?? 'expired', txs: [], idempotencyKey: null, at: clock.now(), replaces: [],
        };
      }))));
    }
    return out.filter((c): c is Command => c !== null);
  }
}

export async function startConfirmer(deps: ConfirmerDeps): Promise<PollingRole> {
  const c = new Confirmer(deps);
  // With nothing to settle or close it spaces out to CHAIN_IDLE_POLL_MS; a placed order's NOTIFY (order_work)
  // brings it back, at most once per CHAIN_POLL_MS (under load the notifications come every few ms: the
  // passes stay as frequent as the poll). A close applied meanwhile waits out the spaced poll.
  return new PollingRole('confirmer', deps.cfg.CHAIN_POLL_MS, () => c.tick())
    .wakeOn(deps.pool, 'order_work').coalesce(deps.cfg.CHAIN_POLL_MS).idleBackOff(deps.cfg.CHAIN_IDLE_POLL_MS).start();
}
