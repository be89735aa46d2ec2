/**
 * POST/GET /v1/subscriptions, GET/PATCH/DELETE /v1/subscriptions/{id} (contract.md section 9). The route
 * checks the request's shape and the price row; the processor decides idempotency and the limits on the
 * log; the watcher (services/subscriptions/watcher.ts) places the refills as ordinary orders.
 */
import { Router, type Response } from 'express';
import type { CommandBus } from '../../platform/command-bus';
import type { Runtime } from '../../chain/clients';
import { priceFor, type DelegatedResource, type Tier } from '../../domain/pricing';
import type { PlanPricing, UpdateSubscriptionCommand } from '../../domain/subscriptions/commands';
import { receiverActivation } from '../receiver-activation';
import { DEFAULT_MAX_REFILLS_PER_DAY, subscriptionRequestHash, type SubscriptionKind, type SubscriptionSpec } from '../../domain/subscriptions/rules';
import { listSubscriptions, subscriptionByRef } from '../../subscriptions/store';
import { subscriptionJson } from '../../domain/subscriptions/view';
import { accountIdOf, requireAuth } from '../auth/require-auth';
import { ApiError, sendJson } from '../errors';
import { createdCursorCodec } from '../cursor';
import { checkAddress, submitCommand } from '../identity-deps';
import type { RequestValidator } from '../validate';
import { accountLimits } from '../../domain/account';

export interface SubscriptionRouteDeps {
  rt: Runtime;
  bus: CommandBus;
  validator: RequestValidator;
}

/** int64 SUN or null; absent is undefined. The JSON parser keeps large integers as bigint. */
function optionalSun(value: unknown, field: string): bigint | null | undefined {
  if (value === undefined || value === null) return value as null | undefined;
  if ((typeof value === 'number' && Number.isSafeInteger(value)) || typeof value === 'bigint') {
    const v = BigInt(value);
    if (v >= 0n && v <= 9_223_372_036_854_775_807n) return v;
  }
  throw new ApiError('invalid_request', `\`${field}\` must be a non-negative int64.`, { field });
}

/** The refill's row must be sold and hold the amount (2003, 4002), as for an order. */
function checkPriced(rt: Runtime, resource: DelegatedResource, tier: Tier, amount: number): void {
  const check = priceFor(rt.prices, resource, tier, amount, accountLimits.max_order_energy);
  if (!check.ok) throw new ApiError(check.slug, check.message, check.details ?? null);
}

const { encode: encodeCursor, decode: decodeCursor } = createdCursorCodec('sub');

function specOf(rt: Runtime, body: Record<string, any>): SubscriptionSpec {
  const kind = body.kind as SubscriptionKind;
  const receiver = checkAddress(body.receiver, 'receiver');
  const spec: SubscriptionSpec = {
    kind, receiver, resource: body.resource, amount: body.amount, tier: body.tier ?? null, thresholdAmount: body.threshold_amount ?? null,
    maxPriceSun: optionalSun(body.max_price_sun, 'max_price_sun') ?? null, maxRefillsPerDay: body.max_refills_per_day ?? DEFAULT_MAX_REFILLS_PER_DAY,
  };
  if (kind === 'refill') {
    if (spec.tier === null) throw new ApiError('invalid_request', 'Missing required field `tier`.', { field: 'tier' });
    if (spec.thresholdAmount === null) throw new ApiError('invalid_request', 'Missing required field `threshold_amount`.', { field: 'threshold_amount' });
    checkPriced(rt, spec.resource, spec.tier, spec.amount);
  } else {
    if (spec.tier !== null) throw new ApiError('invalid_request', 'A plan takes no tier.', { field: 'tier' });
    if (spec.thresholdAmount !== null) throw new ApiError('invalid_request', 'A plan takes no threshold_amount.', { field: 'threshold_amount' });
  }
  return spec;
}

export function subscriptionsRouter(deps: SubscriptionRouteDeps): Router {
  const { rt, bus, validator } = deps;
  const router = Router();
  const receiverActive = receiverActivation(rt.chain.reader);

  /** A plan's day at the plan row's price (2003 when not sold, 4002 outside its bounds), activation read from the chain. */
  async function planPricing(resource: DelegatedResource, amount: number, receiver: string): Promise<PlanPricing> {
    const row = rt.prices.plans?.find((r) => r.resource === resource);
    if (!row || !row.available) throw new ApiError('tier_unavailable', `No plan is sold for ${resource}.`, { field: 'resource' });
    if (amount < row.min_amount || amount > row.max_amount) {
      throw new ApiError('amount_out_of_range', `The amount must be between ${row.min_amount} and ${row.max_amount}.`, { field: 'amount', min_amount: row.min_amount, max_amount: row.max_amount });
    }
    const active = await receiverActive(receiver);
    return {
      priceSunPerUnit: row.price_sun_per_unit, dailyFeeSun: row.price_sun_per_unit * BigInt(amount), receiverActive: active,
      activateSun: active ? 0n : rt.prices.activationFeeSun, supplier: rt.cfg.ORDER_SUPPLIER,
    };
  }
  const write = requireAuth({ apiKey: { scope: 'orders.write' } });
  const read = requireAuth({ apiKey: { scope: 'orders.read' } });

  async function owned(res: Response, ref: string) {
    const sub = await subscriptionByRef(rt.pool, accountIdOf(res), ref);
    if (!sub) throw new ApiError('not_found', 'No such subscription.');
    return sub;
  }

  router.post('/v1/subscriptions', write, validator.for('createSubscription'), async (req, res) => {
    const accountId = accountIdOf(res);
    const spec = specOf(rt, req.body);
    const clientSubscriptionId = (req.body.client_subscription_id as string | undefined) ?? null;
    const plan = spec.kind === 'plan' ? await planPricing(spec.resource, spec.amount, spec.receiver) : null;
    const result = await submitCommand(bus, {
      type: 'subscription.create', accountId, clientSubscriptionId, requestHash: subscriptionRequestHash(clientSubscriptionId, spec), ...spec, plan,
    });
    sendJson(res, result.status, result.body);
  });

  router.get('/v1/subscriptions', read, validator.for('listSubscriptions'), async (_req, res) => {
    const q = res.locals.query as Record<string, any>;
    const limit = Number(q.limit ?? 50);
    const cursor = q.cursor ? decodeCursor(q.cursor) : undefined;
    const page = await listSubscriptions(rt.pool, accountIdOf(res), { status: q.status, receiver: q.receiver, kind: q.kind }, limit + 1, cursor);
    const data = page.slice(0, limit);
    const last = data[data.length - 1];
    const now = rt.clock.now();
    sendJson(res, 200, {
      data: data.map((s) => subscriptionJson(s, now)),
      next_cursor: page.length > limit && last ? encodeCursor({ createdAt: new Date(last.createdAt), id: last.id }) : null,
    });
  });

  router.get('/v1/subscriptions/:subscriptionId', read, validator.for('getSubscription'), async (req, res) => {
    sendJson(res, 200, subscriptionJson(await owned(res, String(req.params.subscriptionId)), rt.clock.now()));
  });

  router.patch('/v1/subscriptions/:subscriptionId', write, validator.for('updateSubscription'), async (req, res) => {
    const sub = await owned(res, String(req.params.subscriptionId));
    const body = req.body as Record<string, any>;
    const changes: UpdateSubscriptionCommand['changes'] = {};
    if (body.threshold_amount !== undefined) changes.thresholdAmount = body.threshold_amount;
    if (body.amount !== undefined) changes.amount = body.amount;
    if (body.tier !== undefined) changes.tier = body.tier;
    if (body.max_refills_per_day !== undefined) changes.maxRefillsPerDay = body.max_refills_per_day;
    const maxPriceSun = optionalSun(body.max_price_sun, 'max_price_sun');
    if (maxPriceSun !== undefined) changes.maxPriceSun = maxPriceSun;
    if (sub.kind === 'refill') checkPriced(rt, sub.resource, changes.tier ?? (sub.tier as Tier), changes.amount ?? sub.amount);
    else if (changes.tier !== undefined || changes.thresholdAmount !== undefined) {
      throw new ApiError('invalid_request', 'A plan takes no tier or threshold_amount.', { field: changes.tier !== undefined ? 'tier' : 'threshold_amount' });
    }
    // A plan's new amount is priced now; unpausing charges the day again at that price.
    const plan = sub.kind === 'plan' && (changes.amount !== undefined || body.is_paused === false)
      ? await planPricing(sub.resource, changes.amount ?? sub.amount, sub.receiver) : null;
    const result = await submitCommand(bus, {
      type: 'subscription.update', accountId: sub.accountId, subscriptionId: sub.id, changes, isPaused: body.is_paused ?? null, plan,
    });
    sendJson(res, result.status, result.body);
  });

  router.delete('/v1/subscriptions/:subscriptionId', write, validator.for('deleteSubscription'), async (req, res) => {
    const sub = await owned(res, String(req.params.subscriptionId));
    await submitCommand(bus, { type: 'subscription.end', accountId: sub.accountId, subscriptionId: sub.id });
    res.status(204).end();
  });

  return router;
}
