/**
 * POST /v1/batches, GET /v1/batches, GET /v1/batches/{id}, POST /v1/batches/{id}/cancel. The route checks
 * the request's shape and limits; the processor decides idempotency and cancellation on the log; the
 * executor (services/batches/executor.ts) turns each receiver into ordinary orders.
 */
import { Router, type Request } from 'express';
import type { CommandBus } from '../../platform/command-bus';
import type { Runtime } from '../../platform/runtime';
import { priceTable, type PriceTable } from '../../domain/pricing';
import { batchJson } from '../../batches/view';
import { batchRequestHash, duplicateReceiver, mergeItems, type ItemInput, type ItemSpec } from '../../batches/rules';
import { batchByRef, listBatches, ordersOfBatches, type BatchCursor } from '../../batches/store';
import { accountIdOf, requireAuth } from '../auth/require-auth';
import { ApiError, sendJson } from '../errors';
import { cursorInstant, invalidCursor } from '../cursor';
import { checkAddress, submitCommand } from '../identity-deps';
import type { RequestValidator } from '../validate';
import { accountLimits } from '../views/account-view';

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
function itemInput(raw: Record<string, any>, field: string): ItemInput {
  return {
    receiver: raw.receiver, resource: raw.resource, amount: raw.amount, tier: raw.tier, activate: raw.activate, bandwidth: raw.bandwidth,
    bandwidthAmount: raw.bandwidth_amount, maxPriceSun: int64Field(raw.max_price_sun, `${field}.max_price_sun`), clientOrderIdPrefix: raw.client_order_id_prefix,
  };
}

/** Each merged item must name a sellable tier and at least its minimum (large amounts are chunked, not refused). */
function checkItem(table: PriceTable, item: ItemSpec, field: string): void {
  if (item.resource === 'activation') {
    if (item.amount !== null || item.tier !== null) throw new ApiError('invalid_request', 'An activation item takes no amount or tier.', { field });
    return;
  }
  if (item.amount === null) throw new ApiError('invalid_request', 'Missing `amount` (in the item or defaults).', { field: `${field}.amount` });
  if (item.tier === null) throw new ApiError('invalid_request', 'Missing `tier` (in the item or defaults).', { field: `${field}.tier` });
  const row = table.rows.find((r) => r.resource === item.resource && r.tier === item.tier);
  if (!row || !row.available) throw new ApiError('tier_unavailable', `The tier ${item.tier} is not available for ${item.resource}.`, { field: `${field}.tier` });
  if (item.amount < row.min_amount) throw new ApiError('amount_out_of_range', `The amount must be at least ${row.min_amount}.`, { field: `${field}.amount`, min_amount: row.min_amount });
}

function encodeCursor(c: BatchCursor): string {
  return Buffer.from(`${c.createdAt.getTime()}:${c.id}`).toString('base64url');
}

function decodeCursor(text: string): BatchCursor {
  const m = /^(\d{1,15}):(bat_[0-9a-f]{24})$/.exec(Buffer.from(text, 'base64url').toString('utf8'));
  if (!m) throw invalidCursor();
  return { createdAt: cursorInstant(Number(m[1])), id: m[2] };
}

function batchKeyOf(req: Request, clientBatchId: string | undefined): string {
  const key = req.header('idempotency-key');
  if (key !== undefined && !IDEMPOTENCY_KEY.test(key)) throw new ApiError('invalid_request', 'Idempotency-Key must be 8 to 128 characters of A-Z a-z 0-9 . _ : -', { field: 'Idempotency-Key' });
  if (clientBatchId !== undefined) return clientBatchId;
  if (key === undefined) throw new ApiError('idempotency_key_required');
  return `idem:${key}`;
}

export function batchesRouter(deps: BatchRouteDeps): Router {
  const { rt, bus, validator } = deps;
  const router = Router();

  router.post('/v1/batches', requireAuth({ apiKey: { scope: 'orders.write' } }), validator.for('createBatch'), async (req, res) => {
    const accountId = accountIdOf(res);
    const body = req.body as { client_batch_id?: string; defaults?: Record<string, any>; items: Array<Record<string, any>> };
    const batchKey = batchKeyOf(req, body.client_batch_id);
    if (body.items.length > accountLimits.max_batch_receivers) {
      throw new ApiError('batch_too_large', `At most ${accountLimits.max_batch_receivers} receivers per batch.`, { limit: accountLimits.max_batch_receivers, used: body.items.length });
    }
    const inputs = body.items.map((raw, k) => ({ ...itemInput(raw, `items[${k}]`), receiver: checkAddress(raw.receiver, `items[${k}].receiver`) }));
    const duplicate = duplicateReceiver(inputs);
    if (duplicate) throw new ApiError('duplicate_receiver', `The receiver ${duplicate} appears twice.`, { field: 'items', receiver: duplicate });
    const items = mergeItems(itemInput(body.defaults ?? {}, 'defaults'), inputs);
    const table = priceTable(rt.cfg.NETWORK, rt.cfg.ORDER_PRICES, rt.cfg.ACTIVATION_FEE_SUN);
    items.forEach((item, k) => checkItem(table, item, `items[${k}]`));
    const clientBatchId = body.client_batch_id ?? null;
    const result = await submitCommand(bus, { type: 'batch.create', accountId, batchKey, clientBatchId, requestHash: batchRequestHash(clientBatchId, items), items });
    sendJson(res, result.status, result.body);
  });

  router.get('/v1/batches', requireAuth({ apiKey: { scope: 'orders.read' } }), validator.for('listBatches'), async (_req, res) => {
    const accountId = accountIdOf(res);
    const q = res.locals.query as Record<string, any>;
    const limit = Number(q.limit ?? 50);
    const cursor = q.cursor ? decodeCursor(q.cursor) : undefined;
    const page = await listBatches(rt.pool, accountId, limit + 1, cursor);
    const scanned = page.slice(0, limit);
    const orders = await ordersOfBatches(rt.pool, scanned);
    const shown = scanned.map((b) => batchJson(b, orders)).filter((b) => q.status === undefined || b.status === q.status);
    const last = scanned[scanned.length - 1];
    sendJson(res, 200, { data: shown, next_cursor: page.length > limit && last ? encodeCursor({ createdAt: new Date(last.createdAt), id: last.id }) : null });
  });

  router.get('/v1/batches/:batchId', requireAuth({ apiKey: { scope: 'orders.read' } }), validator.for('getBatch'), async (req, res) => {
    const batch = await batchByRef(rt.pool, accountIdOf(res), String(req.params.batchId));
    if (!batch) throw new ApiError('not_found', 'No such batch.');
    const receiver = (res.locals.query as Record<string, any>).receiver as string | undefined;
    if (receiver !== undefined && !batch.items.some((i) => i.receiver === receiver)) throw new ApiError('not_found', 'No such receiver in this batch.');
    sendJson(res, 200, batchJson(batch, await ordersOfBatches(rt.pool, [batch]), receiver));
  });

  router.post('/v1/batches/:batchId/cancel', requireAuth({ apiKey: { scope: 'orders.write' } }), validator.for('cancelBatch'), async (req, res) => {
    const accountId = accountIdOf(res);
    const batch = await batchByRef(rt.pool, accountId, String(req.params.batchId));
    if (!batch) throw new ApiError('not_found', 'No such batch.');
    const result = await submitCommand(bus, { type: 'batch.cancel', accountId, batchId: batch.id });
    sendJson(res, result.status, result.body);
  });

  return router;
}
