/** The Batch and BatchItem objects of the spec (section 2), derived from the batch row and its orders. */
import { delegateHashes, type Order } from '../domain/orders';
import {
  activationStatus, batchStatus, chargedSun, itemStatus, summaryOf, trackingId, type Batch, type BatchItem, type ItemStatus,
} from './rules';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** Orders of one item, in chunk order (the item lists their ids). */
export function ordersOfItem(item: BatchItem, orders: Map<string, Order>): Order[] {
  return item.orderIds.flatMap((id) => orders.get(id) ?? []);
}

export function itemStatusIn(item: BatchItem, orders: Map<string, Order>): ItemStatus {
  return itemStatus(item, ordersOfItem(item, orders));
}

/** Bandwidth top-up is not run by this version: every item reports it skipped, with the reason when one applies. */
function bandwidthOf(item: BatchItem): Record<string, unknown> {
  return { status: 'skipped', order_id: null, skip_reason: item.bandwidth === true ? null : 'option_off' };
}

export function itemJson(batch: Batch, item: BatchItem, orders: Map<string, Order>): Record<string, unknown> {
  const own = ordersOfItem(item, orders);
  const status = itemStatus(item, own);
  const settled = own.filter((o) => o.status !== 'failed' && o.deliveredAmount !== null);
  const failure = item.failure ?? own.find((o) => o.failure)?.failure ?? null;
  const activationTx = own.flatMap((o) => o.allocations).find((a) => a.kind === 'activate');
  return {
    receiver: item.receiver,
    tracking_id: trackingId(batch, item.receiver),
    status,
    resource: item.resource,
    amount: item.amount,
    tier: item.tier,
    delivered_amount: settled.length ? settled.reduce((n, o) => n + (o.deliveredAmount ?? 0), 0) : null,
    order_ids: item.orderIds,
    delegate_hashes: own.flatMap(delegateHashes),
    charged_amount_sun: chargedSun(own),
    activation: { status: activationStatus(item, own), hash: activationTx?.txId ?? null },
    bandwidth: bandwidthOf(item),
    attempts: item.progress === 'queued' || item.progress === 'cancelled' ? 0 : 1,
    started_at: iso(item.startedAt),
    finished_at: status === 'queued' || status === 'processing' ? null : iso(item.finishedAt),
    failure: status === 'failed' || status === 'partial' || status === 'insufficient_funds' ? (failure ? { code: failure.code, slug: failure.slug, message: failure.message } : null) : null,
  };
}

export function batchJson(batch: Batch, orders: Map<string, Order>, receiver?: string): Record<string, unknown> {
  const statuses = batch.items.map((i) => itemStatusIn(i, orders));
  const shown = receiver === undefined ? batch.items : batch.items.filter((i) => i.receiver === receiver);
  return {
    id: batch.id,
    client_batch_id: batch.clientBatchId,
    status: batch.finalStatus ?? batchStatus(statuses),
    items_accepted: batch.items.length,
    summary: summaryOf(statuses),
    items: shown.map((i) => itemJson(batch, i, orders)),
    created_at: iso(batch.createdAt),
    finished_at: iso(batch.finishedAt),
  };
}
