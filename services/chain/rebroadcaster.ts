/** Re-broadcasting of stored signed bytes, shared by the roles that send orders' and grants' transactions. */
import type { BroadcastOutcome, ChainWriter } from './writes';
import { logger } from '../platform/logger';

/** A stored transaction to broadcast, with the order that stored it. */
export interface OwnedTx {
  orderId: string;
  txId: string;
  signedTx: string;
}

/** Broadcasts in flight at once (each one HTTP call to the node). */
const BROADCASTS_AT_ONCE = 32;
/** Real ms a transaction sent ahead is remembered while its order is not handed to `send`. */
const AHEAD_KEPT_MS = 60_000;

/**
 * Broadcasts stored bytes, again every `everyMs` (real) until told the transaction is done with. A
 * DUP_TRANSACTION answer is a re-broadcast of our own bytes only when the order sending it is the one that
 * stored the id; otherwise the bytes are dropped (dead) and the collision logged.
 */
export class Rebroadcaster {
  private readonly sentAt = new Map<string, number>();
  private readonly dead = new Set<string>();
  /** Transactions the node accepted (or already knew as ours): on their way into a block. */
  private readonly accepted = new Set<string>();
  /** Transactions sent by sendAhead, with when: kept by `send` until their orders are handed in. */
  private readonly ahead = new Map<string, number>();
  /**
   * Owners (order_tx_ids) of transactions: known from sendAhead, or read for a round's DUP_TRANSACTION answers
   * in one query, once per id. A transaction sent ahead and not in a block `everyMs` later is sent again and
   * answered DUP (bench/batches.ts meets many such answers; each was a single-id read before, none now;
   * figures in bench/README.md, "Figures formerly quoted in code comments"). An owner
   * never changes once stored; trimmed like `sentAt`.
   */
  private readonly owners = new Map<string, string>();
  /** Refusals (CONTRACT_VALIDATE_ERROR and the like) since the last `refusals()` call. */
  private refused = new Map<string, { code: string; message: string }>();

  constructor(
    private readonly writer: ChainWriter,
    private readonly everyMs = 3_000,
    /** The orders that stored these ids (txOwners); null: every DUP_TRANSACTION is taken as our own. */
    private readonly ownersOf: ((txIds: string[]) => Promise<Map<string, string>>) | null = null,
  ) {}

  /** Refusals seen since the last call (then forgotten). */
  refusals(): Map<string, { code: string; message: string }> {
    const out = this.refused;
    this.refused = new Map();
    return out;
  }

  /** Stops broadcasting these bytes for good. */
  drop(txId: string): void {
    this.dead.add(txId);
  }

  /** True once the node accepted these bytes (a broadcast, or a re-broadcast answered DUP_TRANSACTION for our own). */
  wasAccepted(txId: string): boolean {
    return this.accepted.has(txId);
  }

  /** False once the node said these bytes can never land. */
  alive(txId: string): boolean {
    return !this.dead.has(txId);
  }

  async send(txs: OwnedTx[]): Promise<void> {
    // Bounded: only transactions still handed in (their orders still in a work list) are remembered, and
    // those sent ahead (sendAhead) whose orders are not in the work list yet, for a while.
    const live = new Set(txs.map((t) => t.txId));
    const now = Date.now();
    for (const [id, at] of this.ahead) if (live.has(id) || now - at > AHEAD_KEPT_MS) this.ahead.delete(id);
    const kept = (id: string) => live.has(id) || this.ahead.has(id);
    for (const id of this.sentAt.keys()) if (!kept(id)) this.sentAt.delete(id);
    for (const id of this.dead) if (!kept(id)) this.dead.delete(id);
    for (const id of this.accepted) if (!kept(id)) this.accepted.delete(id);
    for (const id of this.owners.keys()) if (!kept(id)) this.owners.delete(id);
    await this.broadcastDue(txs.filter((t) => !this.dead.has(t.txId) && now - (this.sentAt.get(t.txId) ?? 0) >= this.everyMs));
  }

  /**
   * Broadcasts transactions whose orders are not in the work list `send` is given yet (their sets stored
   * and appended, not applied): remembered as sent and accepted until they are, so `send` does not
   * repeat them at once. Only transactions of a set stored for `orderId` (storeSignedSets, signedOnce):
   * storing a set records every id of it in order_tx_ids for its order or refuses the whole set, so each
   * one's owner is known here and a later DUP_TRANSACTION needs no lookup.
   */
  async sendAhead(txs: OwnedTx[]): Promise<void> {
    const now = Date.now();
    for (const t of txs) {
      this.ahead.set(t.txId, now);
      this.owners.set(t.txId, t.orderId);
    }
    await this.broadcastDue(txs.filter((t) => !this.dead.has(t.txId) && now - (this.sentAt.get(t.txId) ?? 0) >= this.everyMs));
  }

  private async broadcastDue(due: OwnedTx[]): Promise<void> {
    for (let i = 0; i < due.length; i += BROADCASTS_AT_ONCE) {
      const duplicates: OwnedTx[] = [];
      await Promise.all(due.slice(i, i + BROADCASTS_AT_ONCE).map(async (t) => {
        const outcome: BroadcastOutcome = await this.writer.broadcast(t.signedTx);
        this.sentAt.set(t.txId, Date.now());
        if (outcome.kind === 'accepted') this.accepted.add(t.txId);
        if (outcome.kind === 'expired') this.dead.add(t.txId);
        if (outcome.kind === 'refused') this.refused.set(t.txId, { code: outcome.code, message: outcome.message });
        if (outcome.kind === 'expired' || outcome.kind === 'refused') logger.warn({ txId: t.txId, ...outcome }, 'broadcast refused');
        if (outcome.kind === 'duplicate') duplicates.push(t);
      }));
      await this.judgeDuplicates(duplicates);
    }
  }

  /** DUP_TRANSACTION answers of one round of broadcasts: ours (accepted) only when the sending order stored the id. */
  private async judgeDuplicates(duplicates: OwnedTx[]): Promise<void> {
    if (duplicates.length === 0) return;
    if (!this.ownersOf) {
      for (const t of duplicates) this.accepted.add(t.txId);
      return;
    }
    const unknown = [...new Set(duplicates.filter((t) => !this.owners.has(t.txId)).map((t) => t.txId))];
    if (unknown.length > 0) for (const [id, order] of await this.ownersOf(unknown)) this.owners.set(id, order);
    for (const t of duplicates) {
      const owner = this.owners.get(t.txId) ?? null;
      if (owner !== t.orderId) {
        this.dead.add(t.txId);
        logger.error({ txId: t.txId, orderId: t.orderId, owner }, 'DUP_TRANSACTION for a transaction this order did not store: dropped');
      } else {
        this.accepted.add(t.txId);
      }
    }
  }

  forget(txIds: Iterable<string>): void {
    for (const id of txIds) {
      this.sentAt.delete(id);
      this.dead.delete(id);
      this.accepted.delete(id);
      this.ahead.delete(id);
      this.owners.delete(id);
    }
  }
}

