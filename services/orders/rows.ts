/**
 * The orders table's row mapping: its columns and types, and the row to and from the domain's Order.
 * The processor writes the table (services/processor/order-store.ts); every other role reads it through
 * services/orders/.
 */
import type { Order } from '../domain/orders/rules';
import type { TypedColumns } from '../platform/db/bulk';
import { parseJson, stringifyBigintJson, stringifyJson } from '../platform/json';

/** The orders table's columns and their types (the processor writes them as column arrays). */
export const orderColumnTypes = [
  ['id', 'text'], ['account_id', 'text'], ['client_order_id', 'text'], ['request_hash', 'text'],
  ['quote_id', 'text'], ['resource', 'text'], ['amount', 'bigint'], ['delivered_amount', 'bigint'],
  ['partial', 'boolean'], ['tier', 'text'], ['duration_seconds', 'integer'], ['receiver', 'text'],
  ['source', 'text'], ['status', 'text'], ['confirm_status', 'text'], ['price_sun_per_unit', 'bigint'],
  ['pay_amount_sun', 'bigint'], ['activate_amount_sun', 'bigint'], ['total_amount_sun', 'bigint'],
  ['refunded_amount_sun', 'bigint'], ['supplier', 'text'], ['ratio_limit', 'bigint'], ['ratio_weight', 'bigint'],
  ['allocations', 'jsonb'], ['delegated_at', 'timestamptz'], ['expires_at', 'timestamptz'], ['close_reason', 'text'],
  ['close_requested_at', 'timestamptz'], ['undelegations', 'jsonb'], ['reclaim_hash', 'text'],
  ['reclaimed_at', 'timestamptz'], ['memo', 'text'], ['failure', 'jsonb'], ['created_at', 'timestamptz'],
  ['updated_at', 'timestamptz'], ['batch_id', 'text'], ['subscription_id', 'text'],
] as const satisfies TypedColumns;

export const orderColumns = orderColumnTypes.map(([c]) => c);

const ms = (d: Date | null) => (d === null ? null : d.getTime());
const date = (n: number | null) => (n === null ? null : new Date(n));
const num = (v: bigint | null) => (v === null ? null : Number(v));

/** jsonb with bigint amounts kept exact (stored as JSON numbers, read back through lossless parsing). */
function fromJsonb<T>(value: unknown): T {
  return parseJson(JSON.stringify(value)) as T;
}

export function orderFromRow(r: Record<string, any>): Order {
  const allocations = (r.allocations as any[]).map((a) => ({ ...a, sun: BigInt(a.sun) }));
  const undelegations = (r.undelegations as any[]).map((u) => ({ ...u, sun: BigInt(u.sun) }));
  return {
    id: r.id, accountId: r.account_id, clientOrderId: r.client_order_id, requestHash: r.request_hash, quoteId: r.quote_id,
    resource: r.resource, amount: num(r.amount), deliveredAmount: num(r.delivered_amount), partial: r.partial, tier: r.tier,
    durationSeconds: r.duration_seconds, receiver: r.receiver, source: r.source, status: r.status, confirmStatus: r.confirm_status,
    priceSunPerUnit: r.price_sun_per_unit, paySun: r.pay_amount_sun, activateSun: r.activate_amount_sun, totalSun: r.total_amount_sun,
    refundedSun: r.refunded_amount_sun, supplier: r.supplier,
    ratio: r.ratio_limit === null ? null : { limit: r.ratio_limit, weight: r.ratio_weight },
    allocations, delegatedAt: ms(r.delegated_at), expiresAt: ms(r.expires_at), closeReason: r.close_reason,
    closeRequestedAt: ms(r.close_requested_at), undelegations, reclaimHash: r.reclaim_hash, reclaimedAt: ms(r.reclaimed_at), memo: r.memo,
    failure: r.failure === null ? null : fromJsonb(r.failure), createdAt: ms(r.created_at) as number, updatedAt: ms(r.updated_at) as number,
    batchId: r.batch_id ?? null,
    subscriptionId: r.subscription_id ?? null,
  };
}

export function orderToRow(o: Order): unknown[] {
  return [
    o.id, o.accountId, o.clientOrderId, o.requestHash, o.quoteId, o.resource, o.amount, o.deliveredAmount, o.partial, o.tier,
    o.durationSeconds, o.receiver, o.source, o.status, o.confirmStatus, o.priceSunPerUnit, o.paySun, o.activateSun,
    o.totalSun, o.refundedSun, o.supplier, o.ratio?.limit ?? null, o.ratio?.weight ?? null, stringifyBigintJson(o.allocations),
    date(o.delegatedAt), date(o.expiresAt), o.closeReason, date(o.closeRequestedAt), stringifyBigintJson(o.undelegations), o.reclaimHash,
    date(o.reclaimedAt), o.memo, o.failure === null ? null : stringifyJson(o.failure), new Date(o.createdAt), new Date(o.updatedAt),
    o.batchId ?? null, o.subscriptionId ?? null,
  ];
}

