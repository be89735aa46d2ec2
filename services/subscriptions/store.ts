/**
 * Subscription rows: the processor's SubscriptionState (loads what a batch's subscription commands touch,
 * serves it to the pure handlers with the batch's own changes on top, writes the changes back), and the
 * reads of the API and the watcher. Only the processor writes the table.
 */
import type { Command } from '../domain/commands';
import type { Order } from '../domain/orders/rules';
import { upsertRows } from '../platform/db/bulk';
import type { Pool, PoolClient } from '../platform/db/pool';
import { KeyedRows } from '../processor/keyed-rows';
import { orderColumns, orderFromRow } from '../processor/order-store';
import { subscriptionCommandTypes } from '../domain/subscriptions/commands';
import type { Subscription, SubscriptionView } from '../domain/subscriptions/rules';

type Queryable = Pick<Pool, 'query'>;

const columns = [
  'id', 'account_id', 'client_subscription_id', 'request_hash', 'kind', 'status', 'receiver', 'resource', 'amount', 'tier', 'threshold_amount',
  'max_price_sun', 'max_refills_per_day', 'refills_today', 'refill_day', 'last_refill_at', 'last_order_id', 'reason', 'daily_fee_sun',
  'next_billing_at', 'created_at', 'updated_at',
] as const;

const ms = (d: Date | null) => (d === null ? null : d.getTime());
const date = (n: number | null) => (n === null ? null : new Date(n));
const big = (v: string | null) => (v === null ? null : BigInt(v));
const num = (v: string | null) => (v === null ? null : Number(v));

export function subscriptionFromRow(r: Record<string, any>): Subscription {
  return {
    id: r.id, accountId: r.account_id, clientSubscriptionId: r.client_subscription_id, requestHash: r.request_hash, kind: r.kind, status: r.status,
    receiver: r.receiver, resource: r.resource, amount: Number(r.amount), tier: r.tier, thresholdAmount: num(r.threshold_amount),
    maxPriceSun: big(r.max_price_sun), maxRefillsPerDay: r.max_refills_per_day, refillsToday: r.refills_today, refillDay: r.refill_day,
    lastRefillAt: ms(r.last_refill_at), lastOrderId: r.last_order_id, reason: r.reason, dailyFeeSun: big(r.daily_fee_sun),
    nextBillingAt: ms(r.next_billing_at), createdAt: r.created_at.getTime(), updatedAt: r.updated_at.getTime(),
  };
}

const subscriptionToRow = (s: Subscription): unknown[] => [
  s.id, s.accountId, s.clientSubscriptionId, s.requestHash, s.kind, s.status, s.receiver, s.resource, s.amount, s.tier, s.thresholdAmount,
  s.maxPriceSun, s.maxRefillsPerDay, s.refillsToday, s.refillDay, date(s.lastRefillAt), s.lastOrderId, s.reason, s.dailyFeeSun,
  date(s.nextBillingAt), new Date(s.createdAt), new Date(s.updatedAt),
];

export class SubscriptionState implements SubscriptionView {
  private readonly subs = new KeyedRows<Subscription>((s) => s.id);
  private readonly orders = new Map<string, Order>();
  /** Accounts whose live subscriptions are all loaded (creation checks the limit and the receiver). */
  private readonly wholeAccounts = new Set<string>();

  static async load(client: PoolClient, commands: Command[]): Promise<SubscriptionState> {
    const state = new SubscriptionState();
    const work = commands.filter((c) => subscriptionCommandTypes.has(c.type));
    if (work.length === 0) return state;
    const ids = work.flatMap((c) => ('subscriptionId' in c && typeof c.subscriptionId === 'string' ? [c.subscriptionId] : []));
    const creators = [...new Set(work.filter((c) => c.type === 'subscription.create').map((c) => c.accountId))];
    const { rows } = await client.query(
      `SELECT * FROM subscriptions WHERE id = ANY($1::text[])
       UNION SELECT * FROM subscriptions WHERE account_id = ANY($2::text[]) AND (status <> 'ended' OR client_subscription_id IS NOT NULL)`,
      [ids, creators],
    );
    for (const r of rows) state.subs.load(subscriptionFromRow(r));
    for (const a of creators) state.wholeAccounts.add(a);
    const orderIds = state.subs.values().flatMap((s) => (s.lastOrderId ? [s.lastOrderId] : []));
    if (orderIds.length > 0) {
      const { rows: orderRows } = await client.query(`SELECT ${orderColumns.join(', ')} FROM orders WHERE id = ANY($1::text[])`, [orderIds]);
      for (const r of orderRows) state.orders.set(r.id, orderFromRow(r));
    }
    return state;
  }

  byId(subscriptionId: string): Subscription | undefined {
    return this.subs.get(subscriptionId);
  }

  byClientId(accountId: string, clientSubscriptionId: string): Subscription | undefined {
    for (const s of this.subs.values()) if (s.accountId === accountId && s.clientSubscriptionId === clientSubscriptionId) return s;
    return undefined;
  }

  liveOf(accountId: string): Subscription[] {
    if (!this.wholeAccounts.has(accountId)) throw new Error(`live subscriptions of ${accountId} were not loaded`);
    return this.subs.values().filter((s) => s.accountId === accountId && s.status !== 'ended');
  }

  loadedOrder(orderId: string): Order | undefined {
    return this.orders.get(orderId);
  }

  put(sub: Subscription): void {
    this.subs.put(sub);
  }

  async save(client: PoolClient): Promise<void> {
    await upsertRows(client, 'subscriptions', columns, this.subs.changed().map(subscriptionToRow), { key: 'id', keep: ['created_at'] });
  }
}

/** `sub_` id or `cid:<client_subscription_id>`, the caller's own only. */
export async function subscriptionByRef(db: Queryable, accountId: string, ref: string): Promise<Subscription | undefined> {
  const { rows } = ref.startsWith('cid:')
    ? await db.query('SELECT * FROM subscriptions WHERE account_id = $1 AND client_subscription_id = $2', [accountId, ref.slice(4)])
    : await db.query('SELECT * FROM subscriptions WHERE account_id = $1 AND id = $2', [accountId, ref]);
  return rows[0] ? subscriptionFromRow(rows[0]) : undefined;
}

export interface SubscriptionCursor {
  createdAt: Date;
  id: string;
}

export interface SubscriptionFilter {
  status?: string;
  receiver?: string;
  kind?: string;
}

/** Newest first; ended ones included unless the status filter says otherwise. */
export async function listSubscriptions(db: Queryable, accountId: string, filter: SubscriptionFilter, limit: number, after?: SubscriptionCursor): Promise<Subscription[]> {
  const { rows } = await db.query(
    `SELECT * FROM subscriptions WHERE account_id = $1
       AND ($2::text IS NULL OR status = $2) AND ($3::text IS NULL OR receiver = $3) AND ($4::text IS NULL OR kind = $4)
       AND ($5::timestamptz IS NULL OR (created_at, id) < ($5, $6))
     ORDER BY created_at DESC, id DESC LIMIT $7`,
    [accountId, filter.status ?? null, filter.receiver ?? null, filter.kind ?? null, after?.createdAt ?? null, after?.id ?? '', limit],
  );
  return rows.map(subscriptionFromRow);
}

export type WatchedSubscription = Subscription & { availableSun: bigint };

const watchedQuery = `SELECT s.*, (a.balance_sun - a.reserved_sun)::text AS available_sun FROM subscriptions s JOIN accounts a ON a.id = s.account_id
  WHERE (s.status = 'active' OR (s.kind = 'refill' AND s.status = 'suspended'))`;

const watchedFromRow = (r: Record<string, any>): WatchedSubscription => ({ ...subscriptionFromRow(r), availableSun: BigInt(r.available_sun) });

/** A watched refill's receiver and threshold: what the watcher's full pass reads of every watched subscription. */
export interface WatchedThreshold {
  receiver: string;
  resource: string;
  thresholdAmount: number | null;
}

/** Refills active or suspended: three columns each, so a full pass over 10,000 stays light. */
export async function watchedThresholds(db: Queryable): Promise<WatchedThreshold[]> {
  const { rows } = await db.query("SELECT receiver, resource, threshold_amount FROM subscriptions WHERE kind = 'refill' AND status IN ('active', 'suspended')");
  return rows.map((r: Record<string, any>) => ({ receiver: r.receiver, resource: r.resource, thresholdAmount: num(r.threshold_amount) }));
}

/** The watcher's work on a full pass: plans active, refills suspended, refills of the receivers below a threshold; with the account's available balance. */
export async function subscriptionsThatMayAct(db: Queryable, belowReceivers: string[]): Promise<WatchedSubscription[]> {
  const { rows } = await db.query(`${watchedQuery} AND (s.kind = 'plan' OR s.status = 'suspended' OR s.receiver = ANY($1::text[]))`, [belowReceivers]);
  return rows.map(watchedFromRow);
}

/** The same, for the receivers a block named only. */
export async function subscriptionsOfReceivers(db: Queryable, receivers: string[]): Promise<WatchedSubscription[]> {
  if (receivers.length === 0) return [];
  return (await db.query(`${watchedQuery} AND s.receiver = ANY($1::text[])`, [receivers])).rows.map(watchedFromRow);
}

/** Status of the given orders (a refill in flight until its order is delivered or failed). */
export async function orderStatuses(db: Queryable, orderIds: string[]): Promise<Map<string, Order>> {
  const out = new Map<string, Order>();
  if (orderIds.length === 0) return out;
  const { rows } = await db.query(`SELECT ${orderColumns.join(', ')} FROM orders WHERE id = ANY($1::text[])`, [orderIds]);
  for (const r of rows) out.set(r.id, orderFromRow(r));
  return out;
}

/**
 * Plan days to take back: every delivered, not yet closed day of a plan paused or ended (the close asked
 * when it stopped may have found the day not delivered yet), and a plan's earlier day once its current day
 * is delivered (renewal takes the previous day back only then, so the receiver is never left without one).
 */
export async function plansToUndelegate(db: Queryable): Promise<Array<{ accountId: string; orderId: string }>> {
  const { rows } = await db.query(
    `SELECT o.account_id, o.id AS order_id FROM subscriptions s
       JOIN orders o ON o.subscription_id = s.id
       LEFT JOIN orders cur ON cur.id = s.last_order_id
     WHERE s.kind = 'plan' AND o.status IN ('confirmed', 'active') AND o.close_reason IS NULL
       AND (s.status IN ('paused', 'ended') OR (o.id <> s.last_order_id AND cur.status IN ('confirmed', 'active')))`,
  );
  return rows.map((r) => ({ accountId: r.account_id, orderId: r.order_id }));
}
