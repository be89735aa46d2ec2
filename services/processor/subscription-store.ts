/**
 * The subscriptions table inside the processor's transaction: SubscriptionState loads what a slice's
 * subscription commands touch, serves it to the pure handlers with the slice's own changes on top, and
 * writes the changes back. The row mapping is here, with the table's only writer.
 */
import type { Command } from '../domain/commands';
import type { Order } from '../domain/orders/rules';
import type { Effects } from '../domain/outcome';
import { upsertRows } from '../platform/db/bulk';
import type { PoolClient } from '../platform/db/pool';
import { orderColumns, orderFromRow } from '../orders/rows';
import { subscriptionCommandTypes } from '../domain/subscriptions/commands';
import type { Subscription, SubscriptionView } from '../domain/subscriptions/rules';
import type { FeatureState } from './feature-state';
import { KeyedRows } from './keyed-rows';

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

export class SubscriptionState implements SubscriptionView, FeatureState {
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

  absorb(effects: Effects): void {
    for (const sub of effects.subscriptions ?? []) this.subs.put(sub);
  }

  async write(client: PoolClient): Promise<void> {
    await upsertRows(client, 'subscriptions', columns, this.subs.changed().map(subscriptionToRow), { key: 'id', keep: ['created_at'] });
  }
}

