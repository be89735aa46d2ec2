/**
 * Batches (spec sections 2, 3 and 4, Batches): pure rules over plain data. The batch row holds what the
 * log decided (accepted items, who was picked up, cancelled, which orders each receiver got); item and
 * batch status are derived from that and from the orders' own states, never stored twice.
 */
import { createHash } from 'node:crypto';
import { jsonInt } from '../json-int';
import type { Order, OrderStatus } from '../orders/rules';
import type { TransferRef } from '../estimates';
import type { OrderResource, Tier } from '../pricing';

export const itemStatuses = ['queued', 'processing', 'completed', 'partial', 'failed', 'insufficient_funds', 'cancelled'] as const;
export type ItemStatus = (typeof itemStatuses)[number];
export type BatchStatus = 'queued' | 'processing' | 'completed' | 'partial' | 'failed' | 'cancelled';

/** One receiver's options, defaults already merged. */
export interface ItemSpec {
  receiver: string;
  resource: OrderResource;
  amount: number | null;
  tier: Tier | null;
  activate: boolean | null;
  bandwidth: boolean | null;
  bandwidthAmount: number | null;
  maxPriceSun: bigint | null;
  clientOrderIdPrefix: string | null;
  /** `for_transfer` (contract.md section 11): energy sized to this transfer from the receiver (absent on older rows). */
  forTransfer?: TransferRef | null;
}

export interface ItemFailure {
  code: number;
  slug: string;
  message: string;
}

/** Where the executor stands with one receiver, as decided on the log. */
export type ItemProgress = 'queued' | 'started' | 'done' | 'cancelled';

export interface BatchItem extends ItemSpec {
  progress: ItemProgress;
  orderIds: string[];
  /** Why the receiver got less than asked (or nothing): the refusal of the order that stopped it. */
  failure: ItemFailure | null;
  /** The receiver's activation as read when it executed; null until then. */
  receiverActive: boolean | null;
  startedAt: number | null;
  finishedAt: number | null;
  /** The top-up decision taken at pickup from the bandwidth the receiver had (absent before pickup and on older rows). */
  bandwidthPlan?: BandwidthPlan | null;
  /** The top-up order, when one was placed. */
  bandwidthOrderId?: string | null;
  /** Why the top-up was not placed, when it was refused. */
  bandwidthFailure?: ItemFailure | null;
  /** Order commands the executor sent for this receiver (top-up, chunks, and fresh attempts after a refusal at a deadline). */
  attempts?: number;
}

export interface Batch {
  id: string;
  accountId: string;
  /** client_batch_id, or `idem:<Idempotency-Key>`. */
  batchKey: string;
  clientBatchId: string | null;
  requestHash: string;
  items: BatchItem[];
  createdAt: number;
  finishedAt: number | null;
  finalStatus: BatchStatus | null;
  chargedSun: bigint | null;
}

/** A batch as accepted: every receiver queued, nothing ordered. */
export function queuedBatch(fields: Pick<Batch, 'id' | 'accountId' | 'batchKey' | 'clientBatchId' | 'requestHash' | 'createdAt'>, specs: ItemSpec[]): Batch {
  return {
    ...fields,
    items: specs.map((spec): BatchItem => ({ ...spec, progress: 'queued', orderIds: [], failure: null, receiverActive: null, startedAt: null, finishedAt: null })),
    finishedAt: null,
    finalStatus: null,
    chargedSun: null,
  };
}

/**
 * An item or spec as stored (the batch row) and sent (`batch.create`): without its null fields and an
 * empty `orderIds`, which read back as null and [] (`itemFromStored`, `specFromStored`). A queued
 * 100-receiver batch's items are 13 KB of jsonb instead of 30 KB (PostgreSQL's insert about half the CPU),
 * its command 11 KB instead of 20. Rows and commands written in full before read the same.
 */
export function storedForm<T extends ItemSpec>(item: T): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k in item) {
    const v = item[k];
    if (v === null || v === undefined || (k === 'orderIds' && (v as unknown[]).length === 0)) continue;
    // The same JSON text; a number where exact keeps the row's and the command's stringify on its fast path.
    out[k] = k === 'maxPriceSun' ? jsonInt(v as bigint) : v;
  }
  return out;
}

/** A spec's fields a stored or sent form may leave out. */
const SPEC_NULLS = { amount: null, tier: null, activate: null, bandwidth: null, bandwidthAmount: null, maxPriceSun: null, clientOrderIdPrefix: null } as const;

/** A spec from its stored or sent form (int64 `maxPriceSun` as the parser left it: number or bigint). */
export function specFromStored(stored: Record<string, any>): ItemSpec {
  const spec = { ...SPEC_NULLS, ...stored } as ItemSpec & Record<string, unknown>;
  if (spec.maxPriceSun !== null) spec.maxPriceSun = BigInt(spec.maxPriceSun);
  return spec;
}

/** An item from its stored form; the optional fields (bandwidthPlan...) stay absent when left out, as on older rows. */
export function itemFromStored(stored: Record<string, any>): BatchItem {
  return { failure: null, receiverActive: null, startedAt: null, finishedAt: null, ...specFromStored(stored), orderIds: stored.orderIds ?? [] } as BatchItem;
}

export type ItemInput = Partial<Omit<ItemSpec, 'receiver'>> & { receiver?: string };

/** Item fields over defaults, field by field; absent stays null. */
export function mergeItems(defaults: ItemInput, items: Array<ItemInput & { receiver: string }>): ItemSpec[] {
  const pick = <K extends keyof ItemSpec>(item: ItemInput, k: K): ItemSpec[K] | null =>
    ((item[k as keyof ItemInput] ?? defaults[k as keyof ItemInput] ?? null) as ItemSpec[K] | null);
  return items.map((item) => ({
    receiver: item.receiver,
    resource: (pick(item, 'resource') ?? 'energy') as OrderResource,
    amount: pick(item, 'amount'),
    tier: pick(item, 'tier'),
    activate: pick(item, 'activate'),
    bandwidth: pick(item, 'bandwidth'),
    bandwidthAmount: pick(item, 'bandwidthAmount'),
    maxPriceSun: pick(item, 'maxPriceSun'),
    clientOrderIdPrefix: pick(item, 'clientOrderIdPrefix'),
    // Per item only: a transfer is one receiver's.
    ...(item.forTransfer ? { forTransfer: item.forTransfer } : {}),
  }));
}

/** The first receiver named twice, or null (2006). */
export function duplicateReceiver(items: Array<{ receiver: string }>): string | null {
  const seen = new Set<string>();
  for (const { receiver } of items) {
    if (seen.has(receiver)) return receiver;
    seen.add(receiver);
  }
  return null;
}

/** The batch's request identity: its id and every merged item, so the same body hashes the same. */
export function batchRequestHash(clientBatchId: string | null, items: ItemSpec[]): string {
  const canonical = items.map((i) => [
    i.receiver, i.resource, i.amount, i.tier, i.activate, i.bandwidth, i.bandwidthAmount, i.maxPriceSun?.toString() ?? null, i.clientOrderIdPrefix,
    // Only where present, so a batch without one hashes as before.
    ...(i.forTransfer ? [`${i.forTransfer.to}:${i.forTransfer.amount}:${i.forTransfer.token}`] : []),
  ]);
  return createHash('sha256').update(JSON.stringify([clientBatchId, canonical])).digest('hex');
}

/** Amounts of the orders a receiver's amount is split into: as many full chunks as needed, the rest last. */
export function chunkAmounts(amount: number, maxPerOrder: number): number[] {
  if (amount <= 0 || maxPerOrder <= 0) return [];
  const chunks: number[] = [];
  for (let left = amount; left > 0; left -= maxPerOrder) chunks.push(Math.min(left, maxPerOrder));
  return chunks;
}

/** The last chunk may fall below the row's minimum: move units from the previous chunk so both stay in range. */
export function balancedChunks(amount: number, minPerOrder: number, maxPerOrder: number): number[] {
  const chunks = chunkAmounts(amount, maxPerOrder);
  const n = chunks.length;
  if (n >= 2 && chunks[n - 1] < minPerOrder) {
    const moved = minPerOrder - chunks[n - 1];
    chunks[n - 2] -= moved;
    chunks[n - 1] += moved;
  }
  return chunks;
}

export function trackingId(batch: Pick<Batch, 'id' | 'clientBatchId'>, receiver: string): string {
  return `${batch.clientBatchId ?? batch.id}:${receiver}`;
}

/** client_order_id of chunk `index`: `<prefix>-<receiver>` for the first, `-<n>` appended for the others. */
export function clientOrderIdFor(prefix: string | null, receiver: string, index: number): string | null {
  if (prefix === null) return null;
  return index === 0 ? `${prefix}-${receiver}` : `${prefix}-${receiver}-${index + 1}`;
}

const awaiting: readonly OrderStatus[] = ['created', 'paid', 'allocating', 'delegated'];

export type ItemOrder = Pick<Order, 'status' | 'amount' | 'deliveredAmount' | 'totalSun' | 'refundedSun' | 'activateSun' | 'allocations' | 'resource'>;

/** Units the receiver got from its orders (an activation order counts as one unit). */
function deliveredUnits(orders: ItemOrder[]): number {
  return orders
    .filter((o) => o.status !== 'failed' && !awaiting.includes(o.status))
    .reduce((sum, o) => sum + (o.resource === 'activation' ? 1 : (o.deliveredAmount ?? o.amount ?? 0)), 0);
}

/** `orders`: the resource orders (chunks); `topUp`: the bandwidth top-up order, which must settle too. */
export function itemStatus(item: BatchItem, orders: ItemOrder[], topUp?: ItemOrder): ItemStatus {
  if (item.progress === 'cancelled') return 'cancelled';
  if (item.progress === 'queued') return 'queued';
  if (item.progress === 'started') return 'processing';
  if ([...orders, ...(topUp ? [topUp] : [])].some((o) => awaiting.includes(o.status))) return 'processing';
  const got = deliveredUnits(orders);
  // A for_transfer item wants what its order was sized at (the processor decided it; no order: nothing).
  const wanted = item.resource === 'activation' ? 1 : (item.amount ?? orders.reduce((sum, o) => sum + (o.amount ?? 0), 0));
  if (got === 0) return item.failure?.slug === 'insufficient_funds' ? 'insufficient_funds' : 'failed';
  return got >= wanted ? 'completed' : 'partial';
}

export const terminalItem = (s: ItemStatus): boolean => s !== 'queued' && s !== 'processing';

export interface Summary {
  total: number;
  queued: number;
  processing: number;
  completed: number;
  partial: number;
  failed: number;
  insufficient_funds: number;
  cancelled: number;
}

export function summaryOf(statuses: ItemStatus[]): Summary {
  const s: Summary = { total: statuses.length, queued: 0, processing: 0, completed: 0, partial: 0, failed: 0, insufficient_funds: 0, cancelled: 0 };
  for (const status of statuses) s[status] += 1;
  return s;
}

/** Batch status from its items: partial when some receivers succeeded and some did not. */
export function batchStatus(statuses: ItemStatus[]): BatchStatus {
  const s = summaryOf(statuses);
  if (s.queued === s.total) return 'queued';
  if (s.queued + s.processing > 0) return 'processing';
  if (s.cancelled === s.total) return 'cancelled';
  if (s.completed === s.total - s.cancelled) return 'completed';
  if (s.completed + s.partial === 0) return 'failed';
  return 'partial';
}

/** What the receiver was charged: what left the balance minus what came back. */
export function chargedSun(orders: ItemOrder[]): bigint {
  return orders.reduce((sum, o) => sum + (o.status === 'failed' ? 0n : o.totalSun - o.refundedSun), 0n);
}

export type ActivationStatus = 'planned' | 'not_needed' | 'done' | 'failed' | 'skipped';

export function activationStatus(item: BatchItem, orders: ItemOrder[]): ActivationStatus {
  if (item.receiverActive === true) return 'not_needed';
  const tx = orders.flatMap((o) => o.allocations).find((a) => a.kind === 'activate');
  if (tx) return tx.landed === true ? 'done' : tx.landed === false ? 'failed' : 'planned';
  if (item.receiverActive === false) {
    if (item.activate === false || item.failure) return 'skipped';
    return orders.some((o) => o.status === 'failed') ? 'failed' : 'planned';
  }
  return item.progress === 'cancelled' ? 'skipped' : 'planned';
}

/** Bandwidth a receiver should have free before its energy arrives when the item names none: about one TRC-20 transfer. */
export const DEFAULT_BANDWIDTH_AMOUNT = 350;

export type BandwidthStatus = 'planned' | 'enough' | 'done' | 'failed' | 'skipped';
export type BandwidthSkip = 'option_off' | 'amount_large';

/**
 * Whether a receiver gets a top-up, decided from the item and the bandwidth read at pickup. Only energy
 * items are topped up (on by default; `bandwidth: false` turns it off); an energy amount larger than one
 * order may hold (chunked) is a contract caller's order and needs no top-up (`amount_large`).
 */
export type BandwidthPlan = { kind: 'skip'; reason: BandwidthSkip | null } | { kind: 'enough'; free: number } | { kind: 'top-up'; amount: number; free: number | null };

export function bandwidthPlan(
  item: Pick<ItemSpec, 'resource' | 'amount' | 'bandwidth' | 'bandwidthAmount'>, maxPerOrder: number, free: number | null,
): BandwidthPlan {
  if (item.resource !== 'energy') return { kind: 'skip', reason: null };
  if (item.bandwidth === false) return { kind: 'skip', reason: 'option_off' };
  if (item.amount !== null && item.amount > maxPerOrder) return { kind: 'skip', reason: 'amount_large' };
  const wanted = item.bandwidthAmount ?? DEFAULT_BANDWIDTH_AMOUNT;
  return free !== null && free >= wanted ? { kind: 'enough', free } : { kind: 'top-up', amount: wanted, free };
}

/**
 * The item's `bandwidth` object from what the log holds and the top-up order's own state. Before pickup
 * only what the item itself says is known (option off, not energy); the rest is `planned`.
 */
export function bandwidthOf(item: BatchItem, order: ItemOrder | undefined): { status: BandwidthStatus; skipReason: BandwidthSkip | null } {
  const plan = item.bandwidthPlan ?? bandwidthPlan(item, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
  if (plan.kind === 'skip') return { status: 'skipped', skipReason: plan.reason };
  if (!item.bandwidthPlan) return { status: item.progress === 'cancelled' ? 'skipped' : 'planned', skipReason: null };
  return { status: topUpStatus(item, order, plan), skipReason: null };
}

function topUpStatus(item: BatchItem, order: ItemOrder | undefined, plan: BandwidthPlan): BandwidthStatus {
  if (plan.kind === 'enough') return 'enough';
  if (item.bandwidthFailure) return 'failed';
  if (!order) return item.progress === 'done' ? 'failed' : 'planned';
  if (order.status === 'failed') return 'failed';
  return awaiting.includes(order.status) ? 'planned' : 'done';
}
