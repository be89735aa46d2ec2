/**
 * The store of signed sets: an order is signed once per purpose, the stored command re-appended after a
 * crash with the same command id (order_signatures), each transaction id owned by one order
 * (order_tx_ids), one live claim per receiver's activation (receiver_activations).
 */
import { allocateSetsInDelivery, orderFailedSql } from '../orders/signed-set-reads';
import { expirationOf } from '../chain/writes';
import type { Command } from '../domain/commands';
import { inTransaction, type Pool } from '../platform/db/pool';
import { parseOwnJson, stringifyBigintJson } from '../platform/json';
import { logger } from '../platform/logger';

/** Commands carrying signed sets, revived from their stored JSON (bigints restored). */
function reviveCommand(text: string): Command {
  // Our own stored text: the engine's parser (lossless-json here was a large share of the chain process's
  // CPU; figures in bench/README.md, "Figures formerly quoted in code comments").
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
        [orderId, purpose, stringifyBigintJson(command)],
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
            WHERE r.order_id = EXCLUDED.order_id OR ${orderFailedSql('r.order_id')}
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
    `SELECT r.receiver, r.order_id FROM receiver_activations r WHERE r.receiver = ANY($1::text[]) AND NOT ${orderFailedSql('r.order_id')}`,
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
/** What a signed set is for: the delivery (`allocate`), the close, or a re-signed close (`close:<first replaced tx id>`). */
export type SignedPurpose = 'allocate' | 'close' | `close:${string}`;

export async function signedOnce(
  pool: Pool, orderId: string, purpose: SignedPurpose, make: () => Promise<Command | null>, receiver: string | null = null,
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

/** The message of the statement storeSignedSets refuses itself with (migrations/1765400000001_statement-refusal.sql). */
const SET_ID_TAKEN = 'signed set refused: a transaction id is another order\'s';

/**
 * signedOnce for the signed sets of a whole pass (none of them claiming an activation): stored in one
 * statement (each set with its transaction ids; one round trip, no transaction around it), the stored
 * command answered per order, as signedOnce answers it: a set another signer stored first wins, read back.
 * When any set is refused at the store (an id another order stored), the statement refuses itself (every
 * write of it undone) and each set goes through storeSigned alone, so a refusal keeps nothing of its own set
 * and nothing else changes.
 */
export async function storeSignedSets(pool: Pool, purpose: 'allocate' | 'close', sets: Array<{ orderId: string; command: Command }>): Promise<Map<string, Command | null>> {
  const out = new Map<string, Command | null>();
  if (sets.length === 0) return out;
  if (sets.some((s) => 'txs' in s.command && s.command.txs.some((t) => t.kind === 'activate'))) throw new Error('storeSignedSets: a set claiming an activation is stored by signedOnce');
  const texts = sets.map((s) => stringifyBigintJson(s.command));
  const ids: string[] = [];
  const owners: string[] = [];
  for (const s of sets) if ('txs' in s.command) for (const t of s.command.txs) ids.push(t.txId), owners.push(s.orderId);
  let inserted: Set<string>;
  try {
    // The ids of the sets this statement stores (a set stored before keeps its own); every one of them must
    // be new: one stored already is another order's (a collision), and the statement refuses itself.
    const { rows } = await pool.query(
      `WITH stored AS (
         INSERT INTO order_signatures (order_id, purpose, command) SELECT o, $2, c FROM unnest($1::text[], $3::text[]) AS t(o, c)
         ON CONFLICT DO NOTHING RETURNING order_id),
       wanted AS (SELECT i, o FROM unnest($4::text[], $5::text[]) AS u(i, o) WHERE o IN (SELECT order_id FROM stored)),
       taken AS (
         INSERT INTO order_tx_ids (tx_id, order_id, purpose) SELECT i, o, $2 FROM wanted
         ON CONFLICT (tx_id) DO NOTHING RETURNING tx_id)
       SELECT (SELECT coalesce(array_agg(order_id), '{}') FROM stored) AS fresh,
              CASE WHEN (SELECT count(*) FROM taken) <> (SELECT count(*) FROM wanted) THEN refuse_statement($6) END AS refused`,
      [sets.map((s) => s.orderId), purpose, texts, ids, owners, SET_ID_TAKEN],
    );
    inserted = new Set(rows[0].fresh as string[]);
  } catch (err) {
    if ((err as { code?: string; message?: string }).code !== 'P0001' || (err as Error).message !== SET_ID_TAKEN) throw err;
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
 * none is rewritten), so each pass reads which orders awaiting delivery have one, and the command text
 * (and its parse) only of sets not seen before, in the same query. Bounded: kept for the orders still
 * awaiting delivery.
 */
export class StoredDelegationsCache {
  private readonly byOrder = new Map<string, StoredDelegation[]>();

  async read(pool: Pool): Promise<StoredDelegation[]> {
    const rows = await allocateSetsInDelivery(pool, [...this.byOrder.keys()]);
    const live = new Set(rows.map((r) => r.orderId));
    for (const id of this.byOrder.keys()) if (!live.has(id)) this.byOrder.delete(id);
    for (const r of rows) if (r.command !== null) this.byOrder.set(r.orderId, delegationsOf(r.command, r.resource));
    return [...live].flatMap((id) => this.byOrder.get(id) ?? []);
  }
}

