/** Prices, quotes and orders (spec section 4 Orders; contract.md section 3). */
import { allTiers, orderResources } from '../../domain/pricing';
import { orderSources, orderStatuses } from '../../domain/orders/rules';
import type { Operation } from './operation';
import { ref, json, obj, nullable, dateTime } from './builders';

const tags = ['orders'];
// Contract §5: a dashboard session (editor or owner to write, with X-CSRF-Token) opens the order routes too; quotes stay API-key only.
const write: Array<Record<string, string[]>> = [{ apiKey: ['orders.write'] }, { session: [] }];
const read: Array<Record<string, string[]>> = [{ apiKey: ['orders.read'] }, { session: [] }];
const quoteSecurity: Array<Record<string, string[]>> = [{ apiKey: ['orders.write'] }];
const orderIdParam = { name: 'orderId', in: 'path' as const, required: true, schema: { type: 'string', maxLength: 200 }, description: 'ord_ id or cid:<client_order_id>' };
const idempotencyKey = { name: 'Idempotency-Key', in: 'header' as const, schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{8,128}$' } };
/** int64: parsed as bigint beyond 2^53 (validate.ts checks it as int64, the route its range). */
const int64 = { type: 'integer', format: 'int64', minimum: 0, description: 'int64 SUN; the order is refused (3006) when the live total exceeds it.' };

export const orderSchemas = {
  // Contract §11: instead of `amount`, the token transfer the receiver (its sender) is about to send.
  ForTransfer: obj({
    to: ref('Address'), amount: { description: 'Token amount in base units: an integer string or an integer.', examples: ['25000000'] },
    token: { type: 'string', maxLength: 64, description: '`USDT` (default) or a TRC-20 contract address.' },
  }, ['to', 'amount']),
  OrderResource: { type: 'string', enum: [...orderResources] },
  Tier: { type: 'string', enum: [...allTiers] },
  OrderStatus: { type: 'string', enum: [...orderStatuses] },
  PriceRow: obj({
    resource: { type: 'string', enum: ['energy', 'bandwidth'] }, tier: { oneOf: [ref('Tier'), { type: 'string', enum: ['plan'] }] }, duration_seconds: { type: 'integer' },
    price_sun_per_unit: ref('Sun'), min_amount: { type: 'integer' }, max_amount: { type: 'integer' }, available: { type: 'boolean' },
  }),
  Quote: obj({
    id: { type: 'string' }, resource: ref('OrderResource'), amount: nullable({ type: 'integer' }), tier: nullable(ref('Tier')), receiver: ref('Address'),
    price_sun_per_unit: nullable(ref('Sun')), pay_amount_sun: ref('Sun'), activate_amount_sun: ref('Sun'), total_amount_sun: ref('Sun'), expires_at: dateTime,
  }),
  Order: {
    type: 'object',
    description: 'Spec section 2, Order; the detail read (OrderDetail) adds fills and delegations.',
    required: ['id', 'account_id', 'resource', 'receiver', 'status', 'confirm_status', 'total_amount_sun', 'created_at'],
    properties: {
      id: { type: 'string' }, client_order_id: nullable({ type: 'string' }), account_id: { type: 'string' }, resource: ref('OrderResource'),
      amount: nullable({ type: 'integer' }), status: ref('OrderStatus'), receiver: ref('Address'), total_amount_sun: ref('Sun'),
      delegate_hashes: { type: 'array', items: { type: 'string' } },
      // The rest of spec section 2's Order, so the generated client types what the dashboard shows.
      batch_id: nullable({ type: 'string' }), subscription_id: nullable({ type: 'string' }), delivered_amount: nullable({ type: 'integer' }),
      partial: { type: 'boolean' }, tier: nullable(ref('Tier')), duration_seconds: nullable({ type: 'integer' }), source: { type: 'string', enum: [...orderSources] },
      confirm_status: { type: 'string', enum: ['unconfirmed', 'confirmed', 'confirm_failed'] }, price_sun_per_unit: nullable(ref('Sun')),
      pay_amount_sun: ref('Sun'), activate_amount_sun: ref('Sun'), refunded_amount_sun: ref('Sun'), delegate_hash: nullable({ type: 'string' }),
      delegated_at: nullable(dateTime), reclaim_hash: nullable({ type: 'string' }), reclaimed_at: nullable(dateTime), expires_at: nullable(dateTime),
      activation: obj({ performed: { type: 'boolean' }, hash: nullable({ type: 'string' }), amount_sun: ref('Sun') }), memo: nullable({ type: 'string' }),
      created_at: dateTime, updated_at: dateTime,
      failure: nullable(obj({ code: ref('ErrorCode'), slug: ref('ErrorSlug'), message: { type: 'string' }, at: dateTime }, ['code', 'slug', 'message'])),
    },
  },
  OrderDetail: {
    description: 'GET /v1/orders/{orderId}: the Order plus what filled it (no supplier named) and its delegations.',
    allOf: [ref('Order'), {
      type: 'object',
      required: ['fills', 'delegations'],
      properties: {
        fills: { type: 'array', items: obj({ class: { type: 'string', enum: ['instant', 'market', 'deep'] }, amount: { type: 'integer' }, price_sun: nullable({ type: 'number', description: 'SUN per unit; null when unreadable.' }) }) },
        delegations: { type: 'array', items: obj({ amount: { type: 'integer', description: 'Requested until confirmed.' }, tx_id: { type: 'string' } }) },
      },
    }],
  },
};

export const orderPaths: Record<string, Record<string, Operation>> = {
  '/v1/prices': {
    get: {
      operationId: 'getPrices', summary: 'Price rows of this network; retired tiers are never listed.', tags, security: [],
      responses: { '200': json('prices', obj({ network: { type: 'string' }, data: { type: 'array', items: ref('PriceRow') }, activation_fee_sun: ref('Sun'), as_of: dateTime })) },
    },
  },
  '/v1/quotes': {
    post: {
      operationId: 'createQuote', summary: 'Pins the total of one order for 60 s.', tags, security: quoteSecurity,
      requestBody: { required: true, content: { 'application/json': { schema: obj({ resource: ref('OrderResource'), amount: { type: 'integer', minimum: 1 }, tier: ref('Tier'), receiver: ref('Address') }, ['resource', 'receiver']) } } },
      responses: { '201': json('quote', ref('Quote')) },
    },
  },
  '/v1/orders': {
    get: {
      operationId: 'listOrders', summary: 'Orders, newest first; filters AND-combined; format=csv streams every match.', tags, security: read,
      parameters: [
        { name: 'status', in: 'query', schema: { type: 'array', items: ref('OrderStatus'), maxItems: 10 } },
        { name: 'resource', in: 'query', schema: ref('OrderResource') },
        { name: 'receiver', in: 'query', schema: { type: 'string', maxLength: 64 } },
        { name: 'client_order_id', in: 'query', schema: { type: 'string', maxLength: 128 } },
        { name: 'created_after', in: 'query', schema: dateTime },
        { name: 'created_before', in: 'query', schema: dateTime },
        { name: 'from', in: 'query', schema: dateTime },
        { name: 'to', in: 'query', schema: dateTime },
        { name: 'format', in: 'query', schema: { type: 'string', enum: ['json', 'csv'] } },
        { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 200, default: 50 } },
        { name: 'cursor', in: 'query', schema: { type: 'string', maxLength: 200 } },
      ],
      responses: { '200': json('orders', obj({ data: { type: 'array', items: ref('Order') }, next_cursor: nullable({ type: 'string' }) })) },
    },
    post: {
      operationId: 'createOrder', summary: 'Charges synchronously and hands the order to the supply layer.', tags, security: write, parameters: [idempotencyKey],
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: obj({
              client_order_id: { type: 'string', minLength: 1, maxLength: 128 }, quote_id: { type: 'string', maxLength: 64 }, resource: ref('OrderResource'),
              amount: { type: 'integer', minimum: 1 }, tier: ref('Tier'), receiver: ref('Address'), activate: { type: 'boolean' }, max_price_sun: nullable(int64),
              memo: nullable({ type: 'string', maxLength: 256 }),
              for_transfer: ref('ForTransfer'),
            }, ['resource', 'receiver']),
          },
        },
      },
      responses: { '200': json('the original order', ref('Order')), '201': json('order', ref('Order')) },
    },
  },
  '/v1/orders/{orderId}': {
    get: {
      operationId: 'getOrder', summary: 'One order with fills and delegations; another account\'s answers 404.', tags, security: read, parameters: [orderIdParam],
      responses: { '200': json('order', ref('OrderDetail')) },
    },
  },
  '/v1/orders/{orderId}/reclaim': {
    post: {
      operationId: 'reclaimOrder', summary: 'Undelegates early; no refund; idempotent.', tags, security: write, parameters: [orderIdParam, idempotencyKey],
      responses: { '200': json('reclaimed', ref('Order')), '202': json('accepted, not yet on chain', ref('Order')) },
    },
  },
};
