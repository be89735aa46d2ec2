/**
 * POST /v1/batches, GET /v1/batches, GET /v1/batches/{id}, POST /v1/batches/{id}/cancel. The route checks
 * the request's shape and limits; the processor decides idempotency and cancellation on the log; the
 * executor (services/batches/executor.ts) turns each receiver into ordinary orders.
 */
import { Router, type Request } from 'express';
import type { CommandBus } from '../../platform/command-bus';
import type { Runtime } from '../../chain/clients';
import type { PriceTable } from '../../domain/pricing';
import { batchJson } from '../../domain/batches/view';
import { batchRequestHash, duplicateReceiver, mergeItems, queuedBatch, type Batch, type ItemInput, type ItemSpec } from '../../domain/batches/rules';
import { batchByRef, listBatches, ordersOfBatches } from '../../batches/store';
import { accountIdOf, requireAuth } from '../auth/require-auth';
import { ApiError, sendJson } from '../errors';
import { markStage } from '../stage-timing';
import { createdCursorCodec } from '../cursor';
import { checkAddress, submitCommand } from '../identity-deps';
import type { RequestValidator } from '../validate';
import type { Config } from '../../platform/config';
import { transferRefOf } from '../transfer-input';
import { accountLimits } from '../../domain/account';

export interface BatchRouteDeps {
  rt: Runtime;
  bus: CommandBus;
  validator: RequestValidator;
}

const IDEMPOTENCY_KEY = /^[A-Za-z0-9._:-]{8,128}$/;

function int64Field(value: unknown, field: string): bigint | undefined {
  if (value === undefined) return undefined;
  if ((typeof value === 'number' && Number.isSafeInteger(value)) || typeof value === 'bigint') {
    const v = BigInt(value);
    if (v >= 0n && v <= 9_223_372_036_854_775_807n) return v;
  }
  throw new ApiError('invalid_request', `\`${field}\` must be a non-negative int64.`, { field });
}

/** The wire item (snake_case) as merge input. */
function itemInput(raw: Record<string, any>, field: string, cfg?: Pick<Config, 'USDT_CONTRACT'>): ItemInput {
  return {
    receiver: raw.receiver, resource: raw.resource, amount: raw.amount, tier: raw.tier, activate: raw.activate, bandwidth: raw.bandwidth,
    bandwidthAmount: raw.bandwidth_amount, maxPriceSun: int64Field(raw.max_price_sun, `${field}.max_price_sun`), clientOrderIdPrefix: raw.client_order_id_prefix,
    ...(raw.for_transfer !== undefined && cfg ? { forTransfer: transferRefOf(cfg, raw.for_transfer, `${field}.for_transfer`) } : {}),
  };
}

/** Each merged item must name a sellable tier and at least its minimum (large amounts are chunked, not refused). */
function checkItem(table: PriceTable, item: ItemSpec, field: string): void {
  if (item.resource === 'activation') {
    if (item.amount !== null || item.tier !== null) throw new ApiError('invalid_request', 'An activation item takes no amount or tier.', { field });
    return;
  }
  if (item.forTransfer) {
    // Contract §11: sized by the processor when the executor places it; energy only, no amount of its own.
    if (item.resource !== 'energy') throw new ApiError('invalid_request', '`for_transfer` orders energy: `resource` must be `energy`.', { field: `${field}.resource` });
    if (item.amount !== null) throw new ApiError('invalid_request', 'Give `amount` or `for_transfer`, not both.', { field: `${field}.amount` });
  } else if (item.amount === null) throw new ApiError('invalid_request', 'Missing `amount` (in the item or defaults).', { field: `${field}.amount` });
  if (item.tier === null) throw new ApiError('invalid_request', 'Missing `tier` (in the item or defaults).', { field: `${field}.tier` });
  const row = table.rows.find((r) => r.resource === item.resource && r.tier === item.tier);
  if (!row || !row.available) throw new ApiError('tier_unavailable', `The tier ${item.tier} is not available for ${item.resource}.`, { field: `${field}.tier` });
  if (item.amount !== null && item.amount < row.min_amount) throw new ApiError('amount_out_of_range', `The amount must be at least ${row.min_amount}.`, { field: `${field}.amount`, min_amount: row.min_amount });
}

const { encode: encodeCursor, decode: decodeCursor } = createdCursorCodec('bat');

function batchKeyOf(req: Request, clientBatchId: string | undefined): string {
  const key = req.header('idempotency-key');
  if (key !== undefined && !IDEMPOTENCY_KEY.test(key)) throw new ApiError('invalid_request', 'Idempotency-Key must be 8 to 128 characters of A-Z a-z 0-9 . _ : -', { field: 'Idempotency-Key' });
  if (clientBatchId !== undefined) return clientBatchId;
  if (key === undefined) throw new ApiError('idempotency_key_required');
  return `idem:${key}`;
}

/** Reads of the batches table one list request makes at most (a status filter reads past non-matching batches). */
const LIST_READS_MAX = 5;
/** Items one list page shows at most: whole batches up to this many items (at least one batch); the rest by next_cursor. */
export const LIST_ITEMS_MAX = 1_000;

function boundedPage<T extends { batch: Batch }>(batches: T[]): T[] {
  let items = 0;
  const page: T[] = [];
  for (const b of batches) {
    if (page.length > 0 && items + b.batch.items.length > LIST_ITEMS_MAX) break;
    items += b.batch.items.length;
    page.push(b);
  }
  return page;
}

export function batchesRouter(deps: BatchRouteDeps): Router {
  const { rt, bus, validator } = deps;
  const router = Router();
  // Like orders (contract §5): the dashboard submits, watches and cancels batches with its session
  // (viewer reads; editor or owner writes, with X-CSRF-Token). An API key is never used from a page.
  const reader = { apiKey: { scope: 'orders.read' as const }, session: { minRole: 'viewer' as const } };
  const writer = { apiKey: { scope: 'orders.write' as const }, session: { minRole: 'editor' as const } };

  router.post('/v1/batches', requireAuth(writer), validator.for('createBatch'), async (req, res) => {
    markStage(res, 'auth');
    const accountId = accountIdOf(res);
    const body = req.body as { client_batch_id?: string; defaults?: Record<string, any>; items: Array<Record<string, any>> };
    const batchKey = batchKeyOf(req, body.client_batch_id);
    if (body.items.length > accountLimits.max_batch_receivers) {
      throw new ApiError('batch_too_large', `At most ${accountLimits.max_batch_receivers} receivers per batch.`, { limit: accountLimits.max_batch_receivers, used: body.items.length });
    }
    const inputs = body.items.map((raw, k) => ({ ...itemInput(raw, `items[${k}]`, rt.cfg), receiver: checkAddress(raw.receiver, `items[${k}].receiver`) }));
    const duplicate = duplicateReceiver(inputs);
    if (duplicate) throw new ApiError('duplicate_receiver', `The receiver ${duplicate} appears twice.`, { field: 'items', receiver: duplicate });
    const items = mergeItems(itemInput(body.defaults ?? {}, 'defaults'), inputs);
    items.forEach((item, k) => checkItem(rt.prices, item, `items[${k}]`));
    const clientBatchId = body.client_batch_id ?? null;
    const requestHash = batchRequestHash(clientBatchId, items);
    markStage(res, 'check');
    const result = await submitCommand(bus, { type: 'batch.create', accountId, batchKey, clientBatchId, requestHash, items }, res);
    const id = String(result.body.id);
    if (result.status === 202) {
      const batch = queuedBatch({ id, accountId, batchKey, clientBatchId, requestHash, createdAt: Number(result.body.created_at) }, items);
      const json = batchJson(batch, new Map());
      markStage(res, 'view');
      return sendJson(res, 202, json);
    }
    // The same request again: the original as it stands now.
    const original = await batchByRef(rt.pool, accountId, id);
    if (!original) throw new ApiError('service_unavailable');
    sendJson(res, 200, batchJson(original, await ordersOfBatches(rt.pool, [original])));
  });

  router.get('/v1/batches', requireAuth(reader), validator.for('listBatches'), async (_req, res) => {
    const accountId = accountIdOf(res);
    const q = res.locals.query as Record<string, any>;
    const limit = Number(q.limit ?? 50);
    const status = q.status as string | undefined;
    // The filter applies before paging: read on until a page has `limit` matches (and one more to know a next
    // page exists), but for LIST_READS_MAX reads at most: past them the page ends short, its next_cursor after
    // the last batch read, so a filter matching nothing never walks the whole history in one request.
    const shown: Array<{ batch: Batch; json: Record<string, unknown> }> = [];
    let cursor = q.cursor ? decodeCursor(q.cursor) : undefined;
    let resumeAt: Batch | undefined;
    for (let reads = 1; ; reads++) {
      const rows = await listBatches(rt.pool, accountId, limit + 1, cursor, status);
      const orders = await ordersOfBatches(rt.pool, rows);
      for (const batch of rows) {
        const json = batchJson(batch, orders);
        if (status === undefined || json.status === status) shown.push({ batch, json });
      }
      const last = rows[rows.length - 1];
      if (shown.length > limit || rows.length <= limit || !last) break;
      if (reads === LIST_READS_MAX) {
        resumeAt = last;
        break;
      }
      cursor = { createdAt: new Date(last.createdAt), id: last.id };
    }
    const page = boundedPage(shown.slice(0, limit));
    const more = page.length < Math.min(limit, shown.length) || shown.length > limit;
    const last = more ? page[page.length - 1]?.batch : resumeAt;
    sendJson(res, 200, { data: page.map((p) => p.json), next_cursor: last ? encodeCursor({ createdAt: new Date(last.createdAt), id: last.id }) : null });
  });

  router.get('/v1/batches/:batchId', requireAuth(reader), validator.for('getBatch'), async (req, res) => {
    const batch = await batchByRef(rt.pool, accountIdOf(res), String(req.params.batchId));
    if (!batch) throw new ApiError('not_found', 'No such batch.');
    const receiver = (res.locals.query as Record<string, any>).receiver as string | undefined;
    if (receiver !== undefined && !batch.items.some((i) => i.receiver === receiver)) throw new ApiError('not_found', 'No such receiver in this batch.');
    sendJson(res, 200, batchJson(batch, await ordersOfBatches(rt.pool, [batch]), receiver));
  });

  router.post('/v1/batches/:batchId/cancel', requireAuth(writer), validator.for('cancelBatch'), async (req, res) => {
    const accountId = accountIdOf(res);
    const batch = await batchByRef(rt.pool, accountId, String(req.params.batchId));
    if (!batch) throw new ApiError('not_found', 'No such batch.');
    const result = await submitCommand(bus, { type: 'batch.cancel', accountId, batchId: batch.id });
    sendJson(res, result.status, result.body);
  });

  return router;
}
