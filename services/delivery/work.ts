/**
 * What the chain roles (broadcaster, confirmer, scheduler) share: their work lists read from the orders
 * the processor keeps, the store of signed sets (an order is signed once per purpose, the stored command
 * re-appended after a crash with the same command id), re-broadcasting of stored bytes, the lifetime of
 * signed transactions, and the polling loop.
 */
import { ChainUnavailable } from '../chain/errors';
import { expirationOf, type BroadcastOutcome, type ChainWriter } from '../chain/writes';
import type { Command } from '../domain/commands';
import type { Order } from '../domain/orders/rules';
import type { Clock } from '../platform/clock';
import { commandBusFor, type CommandBus } from '../platform/command-bus';
import type { Config } from '../platform/config';
import { inTransaction, type Pool, type PoolClient } from '../platform/db/pool';
import { parseOwnJson, stringifyJson } from '../platform/json';
import { logger } from '../platform/logger';
import { chainClients, type ChainClients, type Runtime } from '../runtime';
import { orderColumns, orderFromRow } from '../processor/order-store';

export interface ChainRoleDeps {
  cfg: Config;
  pool: Pool;
  bus: Pick<CommandBus, 'append'>;
  clock: Clock;
}

/** A chain role that signs and sends orders' transactions (broadcaster, scheduler). */
export interface OrderChainDeps extends ChainRoleDeps {
  /** The process's shared clients (roles.ts passes `rt.chain`); default: built from the config for this role. */
  chain?: Pick<ChainClients, 'reader' | 'writer' | 'suppliers'>;
}

/** The shared reader, writer and suppliers, and a sender of the role's own (its resend times and refusals are the role's). */
export function orderChainOf(deps: OrderChainDeps): Pick<ChainClients, 'reader' | 'writer' | 'suppliers'> & { sender: Rebroadcaster } {
  const { reader, writer, suppliers } = deps.chain ?? chainClients(deps.cfg, deps.pool);
  return { reader, writer, suppliers, sender: new Rebroadcaster(writer, 3_000, (txIds) => txOwners(deps.pool, txIds)) };
}

/** A bus for roles that append chain facts only (no replies awaited, so no reply subscription). */
export function appendOnlyBus(rt: Runtime): CommandBus {
  return commandBusFor(rt);
}

/**
 * Chain ms a signed transaction stays valid: no longer than the wait window (in real time), so once the
 * window is over and the head is past the expiration, an unlanded transaction can never land.
 */
export function txLifetimeMs(cfg: Pick<Config, 'ORDER_WAIT_WINDOW_MS'>, clock: Clock): number {
  return Math.min(60_000, Math.max(3_000, clock.realDelay(cfg.ORDER_WAIT_WINDOW_MS)));
}

export type WorkList = 'allocating' | 'needs-allocation' | 'allocated' | 'due-close' | 'closing';

/** SQL of domain/orders closesAfterEnd: a refunded or failed order whose landed (or stranded) stake is not taken back yet. */
const endedWithStake = `(status IN ('refunded', 'failed') AND reclaimed_at IS NULL
  AND (allocations @> '[{"kind": "delegate", "landed": true}]'::jsonb OR allocations @> '[{"kind": "delegate", "stranded": true}]'::jsonb))`;
/** Orders awaiting delivery: signed or not, broadcast (`delegated`) or not, until settled. */
const awaitingDelivery = "status IN ('allocating', 'delegated')";

const where: Record<WorkList, string> = {
  allocating: awaitingDelivery,
  'needs-allocation': "status = 'allocating' AND allocations = '[]'::jsonb",
  allocated: `${awaitingDelivery} AND allocations <> '[]'::jsonb`,
  'due-close': `resource <> 'activation' AND undelegations = '[]'::jsonb AND (
      (status IN ('confirmed', 'active') AND (close_reason = 'reclaimed' OR expires_at <= $2))
      OR (${endedWithStake} AND (status = 'failed' OR expires_at <= $2)))`,
  // Indexed by exactly this condition (migrations/1764410000000_orders-closing-index.sql): change both together.
  closing: `(status IN ('confirmed', 'active') OR ${endedWithStake}) AND undelegations <> '[]'::jsonb`,
};

/**
 * Orders of a work list a role reads every pass, kept with their row version (PostgreSQL's xmin: every
 * update of a row writes a new one), so a pass fetches and parses only the rows that changed since the
 * last (allocations and undelegations carry every signed transaction's JSON). Bounded: trimmed to the list.
 */
export class WorkListCache {
  readonly rows = new Map<string, { version: string; order: Order }>();
}

/**
 * The orders of a work list, oldest first. With a cache: the list's ids and row versions, then the full
 * rows of those new or changed, read again under the list's condition (a row that left the list between
 * the two reads is left out, as the one-query read would have).
 */
export async function workList(pool: Pool, list: WorkList, now: number, limit = 500, cache?: WorkListCache): Promise<Order[]> {
  const order = list === 'due-close' ? 'expires_at' : 'created_at';
  const params = list === 'due-close' ? [limit, new Date(now)] : [limit];
  if (!cache) {
    const { rows } = await pool.query(`SELECT ${orderColumns.join(', ')} FROM orders WHERE ${where[list]} ORDER BY ${order} LIMIT $1`, params);
    return rows.map(orderFromRow);
  }
  const { rows } = await pool.query(`SELECT id, xmin::text AS version FROM orders WHERE ${where[list]} ORDER BY ${order} LIMIT $1`, params);
  const listed = rows as Array<{ id: string; version: string }>;
  const ids = new Set(listed.map((r) => r.id));
  for (const id of cache.rows.keys()) if (!ids.has(id)) cache.rows.delete(id);
  const changed = new Set(listed.filter((r) => cache.rows.get(r.id)?.version !== r.version).map((r) => r.id));
  const fresh = new Set<string>();
  if (changed.size > 0) {
    const full = await pool.query(
      `SELECT ${orderColumns.join(', ')}, xmin::text AS row_version FROM orders WHERE id = ANY($1::text[]) AND ${where[list]}`,
      list === 'due-close' ? [[...changed], new Date(now)] : [[...changed]],
    );
    for (const r of full.rows) {
      cache.rows.set(r.id, { version: r.row_version, order: orderFromRow(r) });
      fresh.add(r.id);
    }
  }
  // A changed row not read back has left the list (or changed again and left it): not returned, not kept.
  const out: Order[] = [];
  for (const r of listed) {
    const kept = cache.rows.get(r.id);
    if (!kept) continue;
    if (changed.has(r.id) && !fresh.has(r.id)) {
      cache.rows.delete(r.id);
      continue;
    }
    out.push(kept.order);
  }
  return out;
}

/** Commands carrying signed sets, revived from their stored JSON (bigints restored). */
function reviveCommand(text: string): Command {
  // Our own stored text: the engine's parser (lossless-json here was 14 % of the chain process).
  const c = parseOwnJson(text) as any;
  for (const t of c.txs ?? []) t.sun = BigInt(t.sun);
  if (c.type === 'order.allocate') {
    c.ratioLimit = BigInt(c.ratioLimit);
    c.ratioWeight = BigInt(c.ratioWeight);
  }
  return c as Command;
}

/** Why a signed set was refused at the store: nothing of it is appended, nothing broadcast. */
export type StoreRefusal =
  | { kind: 'tx_collision'; txId: string; owner: string }
  | { kind: 'activation_claimed'; receiver: string; owner: string };

class Refused extends Error {
  constructor(readonly refusal: StoreRefusal) {
    super(refusal.kind);
  }
}

/**
 * Stores a signed set with its transaction ids (order_tx_ids) and, when it activates `receiver`, its claim
 * on that receiver's activation, in one transaction. Refused (rolled back) when an id belongs to another
 * order or another live order claimed the activation. Another signer's set stored first for the same
 * purpose wins silently (nothing of this one is kept).
 */
export async function storeSigned(pool: Pool, orderId: string, purpose: string, command: Command, receiver: string | null = null): Promise<StoreRefusal | null> {
  const txs = 'txs' in command ? command.txs : [];
  try {
    await inTransaction(pool, async (client) => {
      const inserted = await client.query(
        'INSERT INTO order_signatures (order_id, purpose, command) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING order_id',
        [orderId, purpose, stringifyJson(command)],
      );
      if (inserted.rowCount === 0) return;
      const ids = txs.map((t) => t.txId);
      const stored = await client.query(
        'INSERT INTO order_tx_ids (tx_id, order_id, purpose) SELECT unnest($1::text[]), $2, $3 ON CONFLICT (tx_id) DO NOTHING RETURNING tx_id',
        [ids, orderId, purpose],
      );
      // An id not inserted is stored already: by this order (a kept undelegation restated) or by another.
      const fresh = new Set(stored.rows.map((r: { tx_id: string }) => r.tx_id));
      const known = ids.filter((id) => !fresh.has(id));
      if (known.length > 0) {
        const taken = await client.query('SELECT tx_id, order_id FROM order_tx_ids WHERE tx_id = ANY($1::text[]) AND order_id <> $2 LIMIT 1', [known, orderId]);
        if (taken.rows.length > 0) throw new Refused({ kind: 'tx_collision', txId: taken.rows[0].tx_id, owner: taken.rows[0].order_id });
      }
      const activation = txs.find((t) => t.kind === 'activate');
      if (activation && receiver) {
        // A claim stands while its order has not failed; a failed claimant's receiver may be claimed again.
        const claim = await client.query(
          `INSERT INTO receiver_activations AS r (receiver, order_id, tx_id) VALUES ($1, $2, $3)
           ON CONFLICT (receiver) DO UPDATE SET order_id = EXCLUDED.order_id, tx_id = EXCLUDED.tx_id, created_at = now()
            WHERE r.order_id = EXCLUDED.order_id OR EXISTS (SELECT 1 FROM orders o WHERE o.id = r.order_id AND o.status = 'failed')
           RETURNING order_id`,
          [receiver, orderId, activation.txId],
        );
        if (claim.rowCount === 0) {
          const { rows } = await client.query('SELECT order_id FROM receiver_activations WHERE receiver = $1', [receiver]);
          throw new Refused({ kind: 'activation_claimed', receiver, owner: rows[0]?.order_id ?? '' });
        }
      }
    });
    return null;
  } catch (err) {
    if (err instanceof Refused) return err.refusal;
    throw err;
  }
}

/** The live (not failed) order that claimed each receiver's activation, for those that have one. */
export async function activationClaimants(pool: Pool, receivers: string[]): Promise<Map<string, string>> {
  if (receivers.length === 0) return new Map();
  const { rows } = await pool.query(
    `SELECT r.receiver, r.order_id FROM receiver_activations r LEFT JOIN orders o ON o.id = r.order_id
      WHERE r.receiver = ANY($1::text[]) AND (o.status IS NULL OR o.status <> 'failed')`,
    [receivers],
  );
  return new Map(rows.map((r: { receiver: string; order_id: string }) => [r.receiver, r.order_id]));
}

/**
 * The command of an order's signed set for `purpose`: the stored one, else `make()` stored first (the
 * first stored wins when two signers race). Only the stored command is ever appended. A re-signed close
 * (its undelegations expired unlanded) is stored under `close:<first replaced tx id>`, once per attempt.
 * A set refused at the store (see storeSigned) is logged and answers null: the next pass signs afresh.
 */
export async function signedOnce(
  pool: Pool, orderId: string, purpose: 'allocate' | 'close' | `close:${string}`, make: () => Promise<Command | null>, receiver: string | null = null,
): Promise<Command | null> {
  const read = async () => {
    const { rows } = await pool.query('SELECT command FROM order_signatures WHERE order_id = $1 AND purpose = $2', [orderId, purpose]);
    return rows.length ? reviveCommand(rows[0].command) : null;
  };
  const stored = await read();
  if (stored) return stored;
  const made = await make();
  if (!made) return null;
  const refusal = await storeSigned(pool, orderId, purpose, made, receiver);
  if (refusal) {
    (refusal.kind === 'tx_collision' ? logger.error : logger.info).call(logger, { orderId, purpose, ...refusal }, 'signed set refused at the store');
    return null;
  }
  return read();
}

/** The stored commands of these orders for `purpose` (one query for a whole pass). */
export async function storedCommands(pool: Pool, orderIds: string[], purpose: 'allocate' | 'close'): Promise<Map<string, Command>> {
  if (orderIds.length === 0) return new Map();
  const { rows } = await pool.query('SELECT order_id, command FROM order_signatures WHERE order_id = ANY($1::text[]) AND purpose = $2', [orderIds, purpose]);
  return new Map(rows.map((r: { order_id: string; command: string }) => [r.order_id, reviveCommand(r.command)]));
}

/**
 * signedOnce for the signed sets of a whole pass (none of them claiming an activation): stored in one
 * transaction (each set with its transaction ids), the stored command answered per order, as signedOnce
 * answers it: a set another signer stored first wins, read back. When any set is refused at the store (an
 * id another order stored), the transaction is rolled back and each set goes through storeSigned alone,
 * so a refusal keeps nothing of its own set and nothing else changes.
 */
export async function storeSignedSets(pool: Pool, purpose: 'allocate', sets: Array<{ orderId: string; command: Command }>): Promise<Map<string, Command | null>> {
  const out = new Map<string, Command | null>();
  if (sets.length === 0) return out;
  if (sets.some((s) => 'txs' in s.command && s.command.txs.some((t) => t.kind === 'activate'))) throw new Error('storeSignedSets: a set claiming an activation is stored by signedOnce');
  const texts = sets.map((s) => stringifyJson(s.command));
  let inserted: Set<string>;
  try {
    inserted = await inTransaction(pool, async (client) => {
      const { rows } = await client.query(
        `INSERT INTO order_signatures (order_id, purpose, command) SELECT o, $2, c FROM unnest($1::text[], $3::text[]) AS t(o, c)
         ON CONFLICT DO NOTHING RETURNING order_id`,
        [sets.map((s) => s.orderId), purpose, texts],
      );
      const fresh = new Set(rows.map((r: { order_id: string }) => r.order_id));
      const ids: string[] = [];
      const owners: string[] = [];
      for (const s of sets) {
        if (!fresh.has(s.orderId) || !('txs' in s.command)) continue;
        for (const t of s.command.txs) ids.push(t.txId), owners.push(s.orderId);
      }
      const stored = await client.query(
        `INSERT INTO order_tx_ids (tx_id, order_id, purpose) SELECT i, o, $3 FROM unnest($1::text[], $2::text[]) AS t(i, o)
         ON CONFLICT (tx_id) DO NOTHING RETURNING tx_id`,
        [ids, owners, purpose],
      );
      // Every id of a fresh set is new: any other is stored already, by another order (a collision).
      if (stored.rowCount !== ids.length) throw new Refused({ kind: 'tx_collision', txId: '', owner: '' });
      return fresh;
    });
  } catch (err) {
    if (!(err instanceof Refused)) throw err;
    for (const s of sets) out.set(s.orderId, await signedOnce(pool, s.orderId, purpose, async () => s.command));
    return out;
  }
  const others = sets.filter((s) => !inserted.has(s.orderId)).map((s) => s.orderId);
  const theirs = await storedCommands(pool, others, purpose);
  for (let i = 0; i < sets.length; i++) {
    const s = sets[i];
    out.set(s.orderId, inserted.has(s.orderId) ? reviveCommand(texts[i]) : theirs.get(s.orderId) ?? null);
  }
  return out;
}

/** The orders that stored these transaction ids (order_tx_ids: one owner per id, never changed), by id; ids no order stored are absent. */
export async function txOwners(pool: Pool, txIds: string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  if (txIds.length === 0) return out;
  const { rows } = await pool.query('SELECT tx_id, order_id FROM order_tx_ids WHERE tx_id = ANY($1::text[])', [txIds]);
  for (const r of rows as Array<{ tx_id: string; order_id: string }>) out.set(r.tx_id, r.order_id);
  return out;
}

/** The order that stored `txId`, if any. */
export async function txOwner(pool: Pool, txId: string): Promise<string | null> {
  return (await txOwners(pool, [txId])).get(txId) ?? null;
}

/** A delegation of a stored signed set, with its expiration (chain ms) read from its signed bytes once. */
export interface StoredDelegation {
  from: string;
  resource: 'ENERGY' | 'BANDWIDTH';
  sun: bigint;
  txId: string;
  signedTx: string;
  expiration: number;
}

function delegationsOf(command: string, orderResource: string): StoredDelegation[] {
  const c = reviveCommand(command);
  if (c.type !== 'order.allocate') return [];
  const resource = orderResource === 'bandwidth' ? 'BANDWIDTH' as const : 'ENERGY' as const;
  return c.txs.filter((t) => t.kind === 'delegate').map((t) => ({ from: t.from, resource, sun: t.sun, txId: t.txId, signedTx: t.signedTx, expiration: expirationOf(t.signedTx) }));
}

/**
 * Delegations of the signed sets stored for orders still being allocated (applied by the processor or
 * not yet): the stake they promise is not yet out of what the chain reports as delegatable. For a role
 * that asks every pass: a stored set never changes (the first stored wins,
 * none is rewritten), so each pass reads only which orders awaiting delivery have one, and the command
 * text (and its parse) only of sets not seen before. Bounded: kept for the orders still awaiting delivery.
 */
export class StoredDelegationsCache {
  private readonly byOrder = new Map<string, StoredDelegation[]>();

  async read(pool: Pool): Promise<StoredDelegation[]> {
    const { rows } = await pool.query(
      `SELECT s.order_id FROM order_signatures s JOIN orders o ON o.id = s.order_id WHERE s.purpose = 'allocate' AND o.${awaitingDelivery}`,
    );
    const live = new Set(rows.map((r: { order_id: string }) => r.order_id));
    for (const id of this.byOrder.keys()) if (!live.has(id)) this.byOrder.delete(id);
    const unseen = [...live].filter((id) => !this.byOrder.has(id));
    if (unseen.length > 0) {
      const sets = await pool.query(
        `SELECT s.order_id, o.resource, s.command FROM order_signatures s JOIN orders o ON o.id = s.order_id
          WHERE s.purpose = 'allocate' AND s.order_id = ANY($1::text[])`,
        [unseen],
      );
      for (const r of sets.rows as Array<{ order_id: string; resource: string; command: string }>) this.byOrder.set(r.order_id, delegationsOf(r.command, r.resource));
    }
    return [...live].flatMap((id) => this.byOrder.get(id) ?? []);
  }
}

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
   * answered DUP (bench/batches 5 x 100: 79 such answers, each a single-id read before, none now). An owner
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

/**
 * Runs `tick` every CHAIN_POLL_MS until stopped; a failed pass is logged and retried. With `wakeOn`, a
 * NOTIFY on the channel starts the next pass at once (one arriving during a pass: right after it).
 */
export class PollingRole {
  private stopped = false;
  private loop: Promise<void> | undefined;
  private woken = false;
  private wakeUp: (() => void) | undefined;
  private listen: { pool: Pool; channel: string; client?: PoolClient } | undefined;
  private gapMs = 0;

  constructor(private readonly name: string, private readonly everyMs: number, private readonly tick: () => Promise<void>) {}

  start(): this {
    this.loop = this.run();
    return this;
  }

  /**
   * Passes a wake-up starts begin at most every `ms` (from the start of the one before): under a stream of
   * notifications (the processor commits every few ms under load) the work of that time is done in one pass,
   * its fixed cost (work-list reads, a reference block, one append, one store) paid once, not once per commit.
   */
  coalesce(ms: number): this {
    this.gapMs = ms;
    return this;
  }

  /** Also woken by NOTIFY on `channel` (a held connection; lost, it is taken again at the next pass). */
  wakeOn(pool: Pool, channel: string): this {
    this.listen = { pool, channel };
    return this;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake();
    await this.loop;
    // Cleared first: the connection's later error (the database going away) must not release it twice.
    const client = this.listen?.client;
    if (this.listen) this.listen.client = undefined;
    client?.release();
  }

  private wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  private sleep(ms: number): Promise<void> {
    if (this.woken || this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakeUp = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakeUp = done;
    });
  }

  private async listening(): Promise<void> {
    const l = this.listen;
    if (!l || l.client) return;
    const client = await l.pool.connect();
    client.on('notification', () => this.wake());
    client.on('error', (err) => {
      if (l.client !== client) return;
      l.client = undefined;
      client.release(err);
    });
    try {
      await client.query(`LISTEN ${l.channel}`);
    } catch (err) {
      client.release(err as Error);
      throw err;
    }
    l.client = client;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      await this.listening().catch((err) => logger.warn({ err: (err as Error).message }, `${this.name}: LISTEN failed; polling`));
      this.woken = false;
      const started = performance.now();
      try {
        await this.tick();
      } catch (err) {
        if (err instanceof ChainUnavailable) logger.warn({ err: err.message }, `${this.name}: chain unavailable; retrying`);
        else logger.error({ err }, `${this.name}: pass failed; retrying`);
      }
      const gap = this.gapMs - (performance.now() - started);
      if (gap > 0 && !this.stopped) await new Promise((resolve) => setTimeout(resolve, gap));
      await this.sleep(Math.max(0, this.everyMs - Math.max(0, gap)));
    }
  }
}
