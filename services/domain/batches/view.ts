/** The Batch and BatchItem objects of the spec (section 2), derived from the batch row and its orders. */
import { delegateHashes } from '../orders/view';
import { type Order } from '../orders/rules';
import { jsonInt } from '../json-int';
import {
  activationStatus, bandwidthOf, batchStatus, chargedSun, type BatchStatus, itemStatus, summaryOf, trackingId, type Batch, type BatchItem, type ItemStatus,
} from './rules';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** Orders of one item, in chunk order (the item lists their ids). */
export function ordersOfItem(item: BatchItem, orders: Map<string, Order>): Order[] {
  return item.orderIds.flatMap((id) => orders.get(id) ?? []);
}

/** The bandwidth top-up order of an item, when one was placed. */
export function topUpOf(item: BatchItem, orders: Map<string, Order>): Order | undefined {
  return item.bandwidthOrderId ? orders.get(item.bandwidthOrderId) : undefined;
}

export function itemStatusIn(item: BatchItem, orders: Map<string, Order>): ItemStatus {
  return itemStatus(item, ordersOfItem(item, orders), topUpOf(item, orders));
}

/** What the receiver was charged in all: its chunks and its top-up. */
export function itemChargedSun(item: BatchItem, orders: Map<string, Order>): bigint {
  const topUp = topUpOf(item, orders);
  return chargedSun([...ordersOfItem(item, orders), ...(topUp ? [topUp] : [])]);
}

function bandwidthJson(item: BatchItem, topUp: Order | undefined): Record<string, unknown> {
  const { status, skipReason } = bandwidthOf(item, topUp);
  return { status, order_id: item.bandwidthOrderId ?? null, skip_reason: skipReason };
}

/** Order commands sent for the receiver: counted by the executor when it finishes; one while it works. */
function attemptsOf(item: BatchItem): number {
  if (item.progress === 'queued' || item.progress === 'cancelled') return 0;
  return item.attempts ?? Math.max(1, item.orderIds.length);
}

/** One receiver's orders and status, worked out once for both the summary and its JSON. */
interface ItemState {
  item: BatchItem;
  own: Order[];
  topUp: Order | undefined;
  status: ItemStatus;
}

const NO_ORDERS: Order[] = [];

function itemState(item: BatchItem, orders: Map<string, Order>): ItemState {
  // A queued receiver has no orders: no lookups and no arrays for the 100 items of a new batch's answer.
  const own = item.orderIds.length === 0 ? NO_ORDERS : ordersOfItem(item, orders);
  const topUp = topUpOf(item, orders);
  return { item, own, topUp, status: itemStatus(item, own, topUp) };
}

function itemJson(batch: Batch, { item, own, topUp, status }: ItemState): Record<string, unknown> {
  const all = topUp ? [topUp, ...own] : own;
  const settled = own.filter((o) => o.status !== 'failed' && o.deliveredAmount !== null);
  const failure = item.failure ?? own.find((o) => o.failure)?.failure ?? null;
  // The first order placed carries the activation: the top-up when there is one.
  const activationTx = all.length === 0 ? undefined : all.flatMap((o) => o.allocations).find((a) => a.kind === 'activate');
  return {
    receiver: item.receiver,
    tracking_id: trackingId(batch, item.receiver),
    status,
    resource: item.resource,
    amount: item.amount,
    tier: item.tier,
    delivered_amount: settled.length ? settled.reduce((n, o) => n + (o.deliveredAmount ?? 0), 0) : null,
    order_ids: item.orderIds,
    delegate_hashes: own.length === 0 ? [] : own.flatMap(delegateHashes),
    charged_amount_sun: jsonInt(chargedSun(all)),
    activation: { status: activationStatus(item, all), hash: activationTx?.txId ?? null },
    bandwidth: bandwidthJson(item, topUp),
    attempts: attemptsOf(item),
    started_at: iso(item.startedAt),
    finished_at: status === 'queued' || status === 'processing' ? null : iso(item.finishedAt),
    failure: status === 'failed' || status === 'partial' || status === 'insufficient_funds' ? (failure ? { code: failure.code, slug: failure.slug, message: failure.message } : null) : null,
  };
}

/**
 * The batch's status as read. Finished: what its completion recorded (with `finished_at`). Open: the
 * items' status, but never a finished one before the processor has recorded the completion (its
 * orders may still be settling, and `batch.completed` not sent yet): `processing` until then, so the
 * status and `finished_at` always agree and a terminal status is never read without its time.
 */
export function shownStatus(batch: Pick<Batch, 'finalStatus'>, statuses: ItemStatus[]): BatchStatus {
  if (batch.finalStatus !== null) return batch.finalStatus;
  const derived = batchStatus(statuses);
  return derived === 'queued' || derived === 'processing' ? derived : 'processing';
}

export function batchJson(batch: Batch, orders: Map<string, Order>, receiver?: string): Record<string, unknown> {
  const states = batch.items.map((i) => itemState(i, orders));
  const statuses = states.map((s) => s.status);
  const shown = receiver === undefined ? states : states.filter((s) => s.item.receiver === receiver);
  return {
    id: batch.id,
    client_batch_id: batch.clientBatchId,
    status: shownStatus(batch, statuses),
    items_accepted: batch.items.length,
    summary: summaryOf(statuses),
    items: shown.map((s) => itemJson(batch, s)),
    created_at: iso(batch.createdAt),
    finished_at: iso(batch.finishedAt),
  };
}
