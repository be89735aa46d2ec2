/**
 * The reads of subscription rows the API and the watcher make. Only the processor writes the table
 * (services/processor/subscription-store.ts, which also maps its rows).
 */
import type { Pool } from '../platform/db/pool';
import type { Subscription } from '../domain/subscriptions/rules';
import { subscriptionFromRow } from '../processor/subscription-store';

const num = (v: string | null) => (v === null ? null : Number(v));

type Queryable = Pick<Pool, 'query'>;

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

