/**
 * Orders as the processor keeps them (log-derived), their allocations on chain, the status machine and
 * the customer-facing JSON (spec section 2, Order and order detail). Pure.
 */
import { createHash } from 'node:crypto';
import { domainError, type DomainError } from '../errors';
import type { OrderResource, Tier } from '../pricing';

export const orderStatuses = ['created', 'paid', 'allocating', 'delegated', 'confirmed', 'active', 'expired', 'reclaimed', 'failed', 'refunded'] as const;
export type OrderStatus = (typeof orderStatuses)[number];
export type ConfirmStatus = 'unconfirmed' | 'confirmed' | 'confirm_failed';
export const orderSources = ['api', 'dashboard', 'transfer', 'bot', 'subscription', 'batch', 'proxy'] as const;
export type OrderSource = (typeof orderSources)[number];

/** Where an order is filled: the service's own stake pool, or a third-party provider (no reclaim: 3008). */
export type Supplier = 'pool' | 'provider';

/** One signed chain transaction of an order, stored before it is ever broadcast. */
export interface Allocation {
  /** `delegate` moves stake to the receiver; `activate` is the TRX transfer that activates it. */
  kind: 'delegate' | 'activate';
  /** Pool (or provider) address that signs. */
  from: string;
  /** Resource units (energy/bandwidth) this allocation delivers; 0 for activation. */
  amount: number;
  /** Staked SUN delegated, or SUN transferred for activation. */
  sun: bigint;
  txId: string;
  /** The signed transaction as JSON: the only thing ever broadcast for this allocation. */
  signedTx: string;
  /** Set by the confirmer: true once in a block, false when it can no longer land. */
  landed: boolean | null;
  /**
   * A delegation in a block that was not counted (landed false: the pool's delegated balance did not cover
   * it past the window): nothing delivered, but stake of this order's that the scheduler takes back.
   */
  stranded?: true;
}

/** An undelegation (expiry or reclaim) of one landed delegation, stored before broadcast. */
export interface Undelegation {
  from: string;
  sun: bigint;
  txId: string;
  signedTx: string;
}

export interface OrderFailure {
  code: number;
  slug: string;
  message: string;
  at: number;
}

export interface Order {
  id: string;
  accountId: string;
  clientOrderId: string | null;
  /** sha256 of the canonical request body: a repeated client_order_id must match it. */
  requestHash: string;
  quoteId: string | null;
  resource: OrderResource;
  amount: number | null;
  deliveredAmount: number | null;
  partial: boolean;
  tier: Tier | null;
  durationSeconds: number | null;
  receiver: string;
  source: OrderSource;
  status: OrderStatus;
  confirmStatus: ConfirmStatus;
  priceSunPerUnit: bigint | null;
  paySun: bigint;
  activateSun: bigint;
  totalSun: bigint;
  refundedSun: bigint;
  supplier: Supplier;
  /** Energy (or bandwidth) per staked TRX as the chain said when the order was allocated: limit / weight. */
  ratio: { limit: bigint; weight: bigint } | null;
  allocations: Allocation[];
  delegatedAt: number | null;
  expiresAt: number | null;
  /** Reclaim asked (API) or expiry due (scheduler); undelegations then stored, then landed. */
  closeReason: 'expired' | 'reclaimed' | null;
  closeRequestedAt: number | null;
  undelegations: Undelegation[];
  reclaimHash: string | null;
  reclaimedAt: number | null;
  memo: string | null;
  failure: OrderFailure | null;
  createdAt: number;
  updatedAt: number;
  /** Set when produced by a batch (source `batch`). */
  batchId?: string | null;
  /** Set when produced by a subscription refill (source `subscription`). */
  subscriptionId?: string | null;
}

export interface IdempotencyRecord {
  accountId: string;
  key: string;
  /** What the key was used for: `create` (POST /v1/orders) or `reclaim:<order id>`. */
  scope: string;
  requestHash: string;
  orderId: string;
  status: number;
  createdAt: number;
  expiresAt: number;
}

export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;

/** Statuses from which an order still waits for delivery; a failure there reverses the charge. */
export const awaitingDelivery: readonly OrderStatus[] = ['created', 'paid', 'allocating', 'delegated'];
/** Statuses of a delivered order (the resource is on the receiver). */
export const delivered: readonly OrderStatus[] = ['confirmed', 'active'];
export const terminal: readonly OrderStatus[] = ['expired', 'reclaimed', 'failed', 'refunded'];

/*
 * Status rules the roles also ask PostgreSQL, each with its SQL twin right beside it, built from the same
 * lists so the two cannot drift (test/integration/orders/status-twins.test.ts holds each pair to the same
 * answer for every status). `alias` is the orders table's alias in the caller's query (`o.`), or ''.
 */
const statusIn = (statuses: readonly OrderStatus[], alias: string) => `${alias}status IN (${statuses.map((s) => `'${s}'`).join(', ')})`;

/** awaitingDelivery in SQL. */
export const awaitingDeliverySql = (alias = ''): string => statusIn(awaitingDelivery, alias);

/**
 * In the delivery roles' hands: signed or not, broadcast (`delegated`) or not, until settled. The statuses
 * before it (`created`, `paid`) are awaitingDelivery too, but no role has anything to do for them.
 */
export const inDeliveryStatuses: readonly OrderStatus[] = ['allocating', 'delegated'];
export const inDelivery = (order: Pick<Order, 'status'>): boolean => inDeliveryStatuses.includes(order.status);
export const inDeliverySql = (alias = ''): string => statusIn(inDeliveryStatuses, alias);

/**
 * Ended with its money back (refunded, or failed) while a delegation of it landed (or was stranded), and
 * that stake not yet taken back (`reclaimedAt`).
 */
export function endedWithStake(order: Pick<Order, 'status' | 'reclaimedAt' | 'allocations'>): boolean {
  return (order.status === 'refunded' || order.status === 'failed') && order.reclaimedAt === null
    && order.allocations.some((a) => a.kind === 'delegate' && (a.landed === true || a.stranded === true));
}
export const endedWithStakeSql = (alias = ''): string => `(${statusIn(['refunded', 'failed'], alias)} AND ${alias}reclaimed_at IS NULL
  AND (${alias}allocations @> '[{"kind": "delegate", "landed": true}]'::jsonb OR ${alias}allocations @> '[{"kind": "delegate", "stranded": true}]'::jsonb))`;

/** Undelegations stored and not yet landed: a delivered order closing, or one that ended with stake. */
export function closing(order: Pick<Order, 'status' | 'reclaimedAt' | 'allocations' | 'undelegations'>): boolean {
  return (delivered.includes(order.status) || endedWithStake(order)) && order.undelegations.length > 0;
}
export const closingSql = (alias = ''): string => `(${statusIn(delivered, alias)} OR ${endedWithStakeSql(alias)}) AND ${alias}undelegations <> '[]'::jsonb`;

/**
 * An order that ended with its money back (refunded, or failed) while a delegation of its landed: that
 * stake is still on chain and is taken back (a refunded order's at `expires_at`, a failed one's at once)
 * without moving the order, which stays terminal. `reclaimedAt` marks that close done.
 */
export function closesAfterEnd(order: Pick<Order, 'status' | 'resource' | 'reclaimedAt' | 'allocations'>): boolean {
  return order.resource !== 'activation' && endedWithStake(order);
}

/**
 * The stake an order holds on chain while it counts toward its receiver's (services/orders/open-stake.ts):
 * the landed (or stranded) delegations of a delivered order, and of an order that ended with its money back
 * until its stake is taken back (`reclaimedAt`). Keyed `from|receiver|ENERGY` or `from|receiver|BANDWIDTH`.
 * The processor keeps the sum over all orders in `order_stake` by applying the difference of this between an
 * order's old and new row (services/processor/order-store.ts).
 */
export function heldStake(order: Pick<Order, 'status' | 'resource' | 'reclaimedAt' | 'allocations' | 'receiver'>): Map<string, bigint> {
  const held = new Map<string, bigint>();
  const holds = order.status === 'confirmed' || order.status === 'active' || ((order.status === 'refunded' || order.status === 'failed') && order.reclaimedAt === null);
  if (!holds || order.resource === 'activation') return held;
  const resource = order.resource === 'bandwidth' ? 'BANDWIDTH' : 'ENERGY';
  for (const a of order.allocations) {
    if (a.kind !== 'delegate' || (a.landed !== true && a.stranded !== true)) continue;
    const key = `${a.from}|${order.receiver}|${resource}`;
    held.set(key, (held.get(key) ?? 0n) + a.sun);
  }
  return held;
}

const moves: Record<OrderStatus, readonly OrderStatus[]> = {
  created: ['paid', 'allocating', 'failed'],
  paid: ['allocating', 'failed'],
  allocating: ['delegated', 'confirmed', 'failed'],
  delegated: ['confirmed', 'failed'],
  confirmed: ['active', 'expired', 'reclaimed', 'refunded'],
  active: ['expired', 'reclaimed', 'refunded'],
  expired: ['refunded'],
  reclaimed: ['refunded'],
  failed: [],
  refunded: [],
};

export function canMove(from: OrderStatus, to: OrderStatus): boolean {
  return moves[from].includes(to);
}

/**
 * The processor's guard for every order command (spec section 3): null when the command may take the order
 * from its status to `to`; otherwise why not, recorded as the command's rejection (409
 * order_status_conflict), so a replay of the same log refuses it identically. `to` equal to the current
 * status is a step that keeps the status (allocation stored, undelegations signed): allowed only from
 * `stays`, the statuses that step works on.
 */
export function moveRefusal(order: Pick<Order, 'id' | 'status'>, to: OrderStatus, command: string, stays: readonly OrderStatus[] = []): DomainError | null {
  if (to === order.status ? stays.includes(to) : canMove(order.status, to)) return null;
  const what = to === order.status ? `act on an order in status ${to}` : `move an order from ${order.status} to ${to}`;
  return domainError('order_status_conflict', `${command} cannot ${what}.`, { order_id: order.id, from: order.status, to });
}

/**
 * The request's fingerprint: keys sorted, absent and null alike, so key order in the JSON does not matter.
 * `v2:<hash of the JSON pairs>:<legacy hash>`. The legacy form joined `k=v` with `&` unescaped, so a `memo`
 * of `x&quote_id=q` fingerprinted like another body; the JSON pairs cannot collide that way. The legacy
 * hash rides along so fingerprints stored before v2 (plain hex) still match their original bodies
 * (`sameRequest`).
 */
export function requestHash(fields: Record<string, unknown>): string {
  const present = Object.keys(fields).sort().filter((k) => fields[k] !== undefined && fields[k] !== null);
  const pairs = JSON.stringify(present.map((k) => [k, String(fields[k])]));
  const legacy = present.map((k) => `${k}=${String(fields[k])}`).join('&');
  return `v2:${sha256Hex(pairs)}:${sha256Hex(legacy)}`;
}

const sha256Hex = (text: string) => createHash('sha256').update(text).digest('hex');

/** Whether a stored fingerprint is of the same request as a new one: v2 against v2, else the legacy part. */
export function sameRequest(stored: string, incoming: string): boolean {
  if (stored.startsWith('v2:') || !incoming.startsWith('v2:')) return stored === incoming;
  return stored === incoming.slice(incoming.lastIndexOf(':') + 1);
}

/** Pro-rata refund of the resource part for what did not land; activation is refunded only when it failed. */
export function partialRefund(order: Pick<Order, 'amount' | 'paySun'>, deliveredAmount: number): bigint {
  if (order.amount === null || order.amount === 0) return 0n;
  const undelivered = BigInt(order.amount - deliveredAmount);
  return (order.paySun * undelivered) / BigInt(order.amount);
}
