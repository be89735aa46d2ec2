/** Subscriptions (contract.md section 9): auto-refill and plans. */
import { allTiers } from '../../domain/pricing';
import { pauseReasons, subscriptionKinds, subscriptionStatuses, suspendReasons } from '../../domain/subscriptions/rules';
import type { Operation } from './operation';
import { ref, json, obj, nullable, dateTime } from './builders';

const tags = ['subscriptions'];
const write: Array<Record<string, string[]>> = [{ apiKey: ['orders.write'] }];
const read: Array<Record<string, string[]>> = [{ apiKey: ['orders.read'] }];
const idParam = { name: 'subscriptionId', in: 'path' as const, required: true, schema: { type: 'string', maxLength: 200 }, description: 'sub_ id or cid:<client_subscription_id>' };

const amount = { type: 'integer', minimum: 1, maximum: 1_000_000_000 };
const resource = { type: 'string', enum: ['energy', 'bandwidth'] };
const tier = { type: 'string', enum: [...allTiers] };
const thresholdAmount = { type: 'integer', minimum: 0, maximum: 1_000_000_000 };
const maxRefillsPerDay = { type: 'integer', minimum: 1, maximum: 1000 };
/** int64 SUN, type-checked by the route (large integers arrive as bigint). */
const maxPriceSun = nullable({ type: 'integer', format: 'int64', minimum: 0, description: 'int64 SUN; caps one refill\'s total; null: no cap' });

export const subscriptionSchemas = {
  Subscription: {
    type: 'object',
    required: ['id', 'kind', 'status', 'receiver', 'resource', 'amount', 'created_at', 'updated_at'],
    properties: {
      id: { type: 'string' }, client_subscription_id: nullable({ type: 'string' }), kind: { type: 'string', enum: [...subscriptionKinds] },
      status: { type: 'string', enum: [...subscriptionStatuses] }, receiver: ref('Address'), resource, amount: { type: 'integer' },
      tier: nullable({ type: 'string' }), threshold_amount: nullable({ type: 'integer' }), max_price_sun: nullable(ref('Sun')),
      max_refills_per_day: { type: 'integer' }, refills_today: { type: 'integer' }, last_refill_at: nullable(dateTime),
      last_order_id: nullable({ type: 'string' }), reason: nullable({ type: 'string', enum: [...suspendReasons, ...pauseReasons] }),
      daily_fee_sun: nullable(ref('Sun')), next_billing_at: nullable(dateTime), created_at: dateTime, updated_at: dateTime,
    },
  },
};

export const subscriptionPaths: Record<string, Record<string, Operation>> = {
  '/v1/subscriptions': {
    get: {
      operationId: 'listSubscriptions', summary: 'Subscriptions, newest first; ended ones listed unless filtered.', tags, security: read,
      parameters: [
        { name: 'status', in: 'query', schema: { type: 'string', enum: [...subscriptionStatuses] } },
        { name: 'receiver', in: 'query', schema: { type: 'string', maxLength: 64 } },
        { name: 'kind', in: 'query', schema: { type: 'string', enum: [...subscriptionKinds] } },
        { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 200, default: 50 } },
        { name: 'cursor', in: 'query', schema: { type: 'string', maxLength: 200 } },
      ],
      responses: { '200': json('subscriptions', obj({ data: { type: 'array', items: ref('Subscription') }, next_cursor: nullable({ type: 'string' }) })) },
    },
    post: {
      operationId: 'createSubscription', summary: 'Watch a receiver and refill it below threshold_amount (refill), or a standing daily delegation (plan).', tags, security: write,
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: obj({
              kind: { type: 'string', enum: [...subscriptionKinds] }, receiver: ref('Address'), resource, amount, tier, threshold_amount: thresholdAmount,
              max_price_sun: maxPriceSun, max_refills_per_day: maxRefillsPerDay, client_subscription_id: { type: 'string', minLength: 1, maxLength: 128 },
            }, ['kind', 'receiver', 'resource', 'amount']),
          },
        },
      },
      responses: {
        '200': json('the original subscription (same client_subscription_id and body)', ref('Subscription')), '201': json('created', ref('Subscription')),
      },
    },
  },
  '/v1/subscriptions/{subscriptionId}': {
    get: {
      operationId: 'getSubscription', summary: 'One subscription; another account\'s is 404.', tags, security: read, parameters: [idParam],
      responses: { '200': json('subscription', ref('Subscription')) },
    },
    patch: {
      operationId: 'updateSubscription', summary: 'Change the refill\'s terms; is_paused pauses (reason user) or resumes.', tags, security: write, parameters: [idParam],
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: obj({
              threshold_amount: thresholdAmount, amount, tier, max_price_sun: maxPriceSun, max_refills_per_day: maxRefillsPerDay, is_paused: { type: 'boolean' },
            }, []),
          },
        },
      },
      responses: { '200': json('subscription', ref('Subscription')) },
    },
    delete: {
      operationId: 'deleteSubscription', summary: 'Ends it (status ended); a plan\'s delegation is undelegated; no refund of the current day.', tags, security: write, parameters: [idParam],
      responses: { '204': { description: 'ended' } },
    },
  },
};
