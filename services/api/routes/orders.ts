/**
 * GET /v1/prices, POST /v1/quotes, POST /v1/orders, GET /v1/orders (JSON or CSV), GET /v1/orders/{id},
 * POST /v1/orders/{id}/reclaim. The API resolves the price in force (or the quote) and reads the
 * receiver's activation state from the chain; the processor decides everything else from the command.
 */
import { Router, type Request, type Response } from 'express';
import type { ChainReader } from '../../chain/reads';
import type { CommandBus } from '../../platform/command-bus';
import { randomId } from '../../domain/ids';
import { orderDetailJson, orderJson } from '../../domain/orders/view';
import { type OrderStatus } from '../../domain/orders/rules';
import { orderCommandFrom } from '../../domain/order-command';
import {
  chargeFor, planRowJson, priceFor, priceRowJson, quoteMatches, QUOTE_TTL_MS, tierSeconds, type DelegatedResource, type OrderResource, type PriceTable, type Tier,
} from '../../domain/pricing';
import type { Runtime } from '../../chain/clients';
import { routingFeeTable } from '../../domain/routing-fee';
import { routingFeeFor } from '../../promo/routing-fee-reads';
import { publicReadBudget } from '../auth/budget';
import { accountIdOf, authOf, requireAuth } from '../auth/require-auth';
import { receiverActivation } from '../receiver-activation';
import { orderForTransfer } from '../for-transfer';
import { BroadcastWatch, placedOrderAnswer } from '../sync-delivery';
import { ApiError, sendJson } from '../errors';
import { createdCursorCodec } from '../cursor';
import { markStage } from '../stage-timing';
import { releaseAdmission } from '../admission';
import { checkAddress, submitCommand } from '../identity-deps';
import { listOrders, orderByRef, orderPositionAt, type OrderCursor, type OrderFilter } from '../../orders/account-reads';
import { insertQuote, quoteById } from '../stores/quotes';
import { writePaced } from '../stream-write';
import type { RequestValidator } from '../validate';
import { accountLimits } from '../../domain/account';
import { csvHeader, csvLine } from '../views/orders-csv';

export interface OrderRouteDeps {
  rt: Runtime;
  bus: CommandBus;
  validator: RequestValidator;
  /** Receiver activation reads; default: the runtime's shared reader (rt.chain). */
  chain?: Pick<ChainReader, 'account' | 'call'>;
}

const IDEMPOTENCY_KEY = /^[A-Za-z0-9._:-]{8,128}$/;

export function pricesOf(rt: Runtime): PriceTable {
  return rt.prices;
}

function idempotencyKeyOf(req: Request): string | null {
  const key = req.header('idempotency-key');
  if (key === undefined) return null;
  if (!IDEMPOTENCY_KEY.test(key)) throw new ApiError('invalid_request', 'Idempotency-Key must be 8 to 128 characters of A-Z a-z 0-9 . _ : -', { field: 'Idempotency-Key' });
  return key;
}

function int64Field(value: unknown, field: string): bigint | null {
  if (value === undefined || value === null) return null;
  if ((typeof value === 'number' && Number.isSafeInteger(value)) || typeof value === 'bigint') {
    const v = BigInt(value);
    if (v >= 0n && v <= 9_223_372_036_854_775_807n) return v;
  }
  throw new ApiError('invalid_request', `\`${field}\` must be a non-negative int64.`, { field });
}

interface Priced {
  resource: OrderResource;
  amount: number | null;
  tier: Tier | null;
  durationSeconds: number | null;
  priceSunPerUnit: bigint | null;
}

/** Checks resource/amount/tier against the price rows (2003, 4002); activation takes neither. */
function priced(table: PriceTable, body: { resource: OrderResource; amount?: number; tier?: Tier }): Priced {
  if (body.resource === 'activation') {
    if (body.amount !== undefined) throw new ApiError('invalid_request', 'An activation order takes no amount.', { field: 'amount' });
    if (body.tier !== undefined) throw new ApiError('invalid_request', 'An activation order takes no tier.', { field: 'tier' });
    return { resource: 'activation', amount: null, tier: null, durationSeconds: null, priceSunPerUnit: null };
  }
  if (body.amount === undefined) throw new ApiError('invalid_request', 'Missing required field `amount`.', { field: 'amount' });
  if (body.tier === undefined) throw new ApiError('invalid_request', 'Missing required field `tier`.', { field: 'tier' });
  const check = priceFor(table, body.resource as DelegatedResource, body.tier, body.amount, accountLimits.max_order_energy);
  if (!check.ok) throw new ApiError(check.slug, check.message, check.details ?? null);
  return { resource: body.resource, amount: body.amount, tier: body.tier, durationSeconds: tierSeconds[body.tier], priceSunPerUnit: check.row.price_sun_per_unit };
}

const { encode: encodeCursor, decode: decodeCursor } = createdCursorCodec('ord');

export function ordersRouter(deps: OrderRouteDeps): Router {
  const { rt, bus, validator } = deps;
  const chain = deps.chain ?? rt.chain.reader;
  const router = Router();

  const receiverActive = receiverActivation(chain);
  const routing = routingFeeTable(rt.cfg.NETWORK, rt.cfg.ROUTING_FEE_BPS, rt.cfg.ROUTING_FEE_TIERS);
  /** The resource's pay plus the routing fee in force (provider-routed orders only; docs/routing-fee.md). */
  const payWithRoutingFee = async (accountId: string, paySun: bigint): Promise<bigint> =>
    paySun + (await routingFeeFor(rt.pool, routing, rt.cfg.ORDER_SUPPLIER, accountId, paySun, rt.clock.now())).feeSun;
  const watch = new BroadcastWatch(rt.pool, rt.cfg.ORDER_SYNC_MAX_WAITING).listen(bus);

  // Contract §5: the dashboard reads and places orders with its session (editor or owner to write; CSRF checked).
  const reader = { apiKey: { scope: 'orders.read' as const }, session: { minRole: 'viewer' as const } };
  const writer = { apiKey: { scope: 'orders.write' as const }, session: { minRole: 'editor' as const } };

  router.get('/v1/prices', validator.for('getPrices'), publicReadBudget(rt), (_req, res) => {
    const table = pricesOf(rt);
    sendJson(res, 200, { network: table.network, data: [...table.rows.map(priceRowJson), ...(table.plans ?? []).map(planRowJson)], activation_fee_sun: table.activationFeeSun, as_of: new Date(rt.clock.now()).toISOString() });
  });

  router.post('/v1/quotes', requireAuth({ apiKey: { scope: 'orders.write' } }), validator.for('createQuote'), async (req, res) => {
    const accountId = accountIdOf(res);
    const table = pricesOf(rt);
    const p = priced(table, req.body);
    const receiver = checkAddress(req.body.receiver, 'receiver');
    const active = await receiverActive(receiver);
    if (p.resource === 'activation' && active) throw new ApiError('invalid_request', 'The receiver is already activated.', { field: 'receiver' });
    const charge = chargeFor(p.priceSunPerUnit, p.amount, active, table.activationFeeSun);
    const paySun = await payWithRoutingFee(accountId, charge.paySun);
    const now = rt.clock.now();
    const quote = {
      id: randomId('quote'), accountId, resource: p.resource, amount: p.amount, tier: p.tier, receiver, priceSunPerUnit: p.priceSunPerUnit,
      paySun, activateSun: charge.activateSun, totalSun: paySun + charge.activateSun, receiverActive: active, expiresAt: now + QUOTE_TTL_MS, createdAt: now,
    };
    await insertQuote(rt.pool, quote);
    sendJson(res, 201, {
      id: quote.id, resource: quote.resource, amount: quote.amount, tier: quote.tier, receiver, price_sun_per_unit: quote.priceSunPerUnit,
      pay_amount_sun: quote.paySun, activate_amount_sun: quote.activateSun, total_amount_sun: quote.totalSun, expires_at: new Date(quote.expiresAt).toISOString(),
    });
  });

  router.post('/v1/orders', requireAuth(writer), validator.for('createOrder'), async (req, res) => {
    markStage(res, 'auth');
    const accountId = accountIdOf(res);
    const idempotencyKey = idempotencyKeyOf(req);
    const body = req.body;
    const maxPriceSun = int64Field(body.max_price_sun, 'max_price_sun');
    const receiver = checkAddress(body.receiver, 'receiver');
    const table = pricesOf(rt);
    let p: Priced;
    let active: boolean;
    let paySun: bigint;
    let activateSun: bigint;
    let quoteExpiresAt: number | null = null;
    // Contract §11: sized by the processor from the chain facts read here (services/api/for-transfer.ts).
    const transfer = body.for_transfer === undefined ? null : await orderForTransfer(rt.cfg, chain, table, accountLimits.max_order_energy, body);
    if (body.quote_id !== undefined) {
      const quote = await quoteById(rt.pool, accountId, body.quote_id);
      if (!quote) throw new ApiError('quote_expired', 'No such quote, or it has expired.');
      if (!quoteMatches(quote as never, { resource: body.resource, amount: transfer ? transfer.amount : body.amount ?? null, tier: body.tier ?? null, receiver })) throw new ApiError('quote_mismatch');
      p = { resource: quote.resource, amount: quote.amount, tier: quote.tier as Tier | null, durationSeconds: quote.tier ? tierSeconds[quote.tier as Tier] : null, priceSunPerUnit: quote.priceSunPerUnit };
      active = quote.receiverActive;
      paySun = quote.paySun;
      activateSun = quote.activateSun;
      quoteExpiresAt = quote.expiresAt;
    } else if (transfer) {
      p = { resource: 'energy', amount: null, tier: body.tier, durationSeconds: tierSeconds[body.tier as Tier], priceSunPerUnit: transfer.row.price_sun_per_unit };
      active = transfer.senderActive;
      const base = transfer.row.price_sun_per_unit * BigInt(transfer.amount);
      transfer.facts.routingFeeBps = (await routingFeeFor(rt.pool, routing, rt.cfg.ORDER_SUPPLIER, accountId, base, rt.clock.now())).bps;
      paySun = 0n;
      activateSun = active ? 0n : table.activationFeeSun;
    } else {
      p = priced(table, body);
      active = await receiverActive(receiver);
      const charge = chargeFor(p.priceSunPerUnit, p.amount, active, table.activationFeeSun);
      paySun = await payWithRoutingFee(accountId, charge.paySun);
      activateSun = charge.activateSun;
    }
    const command = orderCommandFrom({
      accountId, clientOrderId: body.client_order_id ?? null, idempotencyKey,
      resource: p.resource, amount: p.amount, tier: p.tier, durationSeconds: p.durationSeconds, receiver, receiverActive: active,
      activate: body.activate ?? null, maxPriceSun, quoteId: body.quote_id ?? null, quoteExpiresAt, priceSunPerUnit: p.priceSunPerUnit,
      paySun, activateSun, source: authOf(res).kind === 'session' ? 'dashboard' : 'api', memo: body.memo ?? null, supplier: rt.cfg.ORDER_SUPPLIER,
      forTransfer: transfer?.facts ?? null,
    });
    markStage(res, 'price');
    const result = await submitCommand(bus, command, res);
    // The order is placed: the wait for its broadcast is not admission's queue (one poll for every waiting answer).
    releaseAdmission(res);
    const answer = await placedOrderAnswer(rt.pool, watch, accountId, result.body, rt.cfg.ORDER_SYNC_WAIT_MS);
    markStage(res, 'sync');
    sendJson(res, result.status, answer);
  });

  router.get('/v1/orders', requireAuth(reader), validator.for('listOrders'), async (_req, res: Response) => {
    const accountId = accountIdOf(res);
    const q = res.locals.query as Record<string, any>;
    const date = (v: string | undefined) => (v === undefined ? undefined : new Date(v));
    const filter: OrderFilter = {
      status: q.status as OrderStatus[] | undefined, resource: q.resource, receiver: q.receiver, clientOrderId: q.client_order_id,
      createdAfter: date(q.created_after), createdBefore: date(q.created_before), from: date(q.from), to: date(q.to),
    };
    // Decoded before either format, so a crafted cursor is refused (2000) for CSV as well; CSV starts after it.
    const cursor = q.cursor ? decodeCursor(q.cursor) : undefined;
    if (q.format === 'csv') {
      // At most ORDERS_CSV_MAX_ROWS rows per request; when there are more, X-Next-Cursor (the listing's own
      // cursor, also taken by format=csv) continues after the last row written (docs/security.md).
      const cap = rt.cfg.ORDERS_CSV_MAX_ROWS;
      const lastIncluded = await orderPositionAt(rt.pool, accountId, filter, cap, cursor);
      const more = lastIncluded && (await orderPositionAt(rt.pool, accountId, filter, 1, lastIncluded));
      res.status(200).type('text/csv; charset=utf-8').setHeader('content-disposition', 'attachment; filename="orders.csv"');
      res.setHeader('x-export-row-limit', String(cap));
      if (lastIncluded && more) res.setHeader('x-next-cursor', encodeCursor(lastIncluded));
      // Up to that row exactly (orders placed meanwhile come first and do not push it out), at most `cap` otherwise.
      const last = lastIncluded && { at: lastIncluded.createdAt.getTime(), id: lastIncluded.id };
      const beyond = (o: { createdAt: number; id: string }) => last !== undefined && (o.createdAt < last.at || (o.createdAt === last.at && o.id < last.id));
      let after: OrderCursor | undefined = cursor;
      let open = await writePaced(res, csvHeader());
      for (let left = cap; open;) {
        const page = await listOrders(rt.pool, accountId, filter, 500, after);
        const kept = last ? page.filter((o) => !beyond(o)) : page.slice(0, left);
        open = await writePaced(res, kept.map((o) => csvLine(JSON.parse(JSON.stringify(orderJson(o), (_k, v) => (typeof v === 'bigint' ? v.toString() : v))))).join(''));
        left -= kept.length;
        if (kept.length < page.length || page.length < 500) break;
        after = { createdAt: new Date(page[page.length - 1].createdAt), id: page[page.length - 1].id };
      }
      res.end();
      return;
    }
    const limit = Number(q.limit ?? 50);
    const page = await listOrders(rt.pool, accountId, filter, limit + 1, cursor);
    const data = page.slice(0, limit);
    const last = data[data.length - 1];
    sendJson(res, 200, {
      data: data.map(orderJson),
      next_cursor: page.length > limit && last ? encodeCursor({ createdAt: new Date(last.createdAt), id: last.id }) : null,
    });
  });

  router.get('/v1/orders/:orderId', requireAuth(reader), validator.for('getOrder'), async (req, res) => {
    const order = await orderByRef(rt.pool, accountIdOf(res), String(req.params.orderId));
    if (!order) throw new ApiError('not_found', 'No such order.');
    sendJson(res, 200, orderDetailJson(order));
  });

  router.post('/v1/orders/:orderId/reclaim', requireAuth(writer), validator.for('reclaimOrder'), async (req, res) => {
    const accountId = accountIdOf(res);
    const idempotencyKey = idempotencyKeyOf(req);
    const order = await orderByRef(rt.pool, accountId, String(req.params.orderId));
    if (!order) throw new ApiError('not_found', 'No such order.');
    const result = await submitCommand(bus, {
      type: 'order.close', accountId, orderId: order.id, step: 'request', reason: 'reclaimed', txs: [], idempotencyKey, at: rt.clock.now(), replaces: [],
    });
    sendJson(res, result.status, result.body);
  });

  return router;
}
