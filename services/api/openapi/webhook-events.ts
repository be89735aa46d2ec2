/**
 * The `webhooks` section (OpenAPI 3.1): what the service POSTs to an endpoint, one entry per event type of
 * the catalogue (spec section 6), each with its envelope and `data` schema, the signed headers, and what the
 * receiver should answer. The data shapes are those of services/domain/events.ts.
 */
import { webhookEventTypes, type WebhookEventType } from '../../webhooks/event-types';
import { ref, obj, nullable, dateTime } from './builders';

const sun = ref('Sun');
const int64OrNull = nullable({ type: 'integer', format: 'int64' });
const text = { type: 'string' };
const textOrNull = nullable(text);
// 64 hex digits on chain; the test delivery (samples.ts) sends a placeholder, so no pattern is promised.
const hash = nullable({ type: 'string', description: 'Transaction id: 64 hex digits.' });

const reclaimed = {
  order_id: text, client_order_id: textOrNull, receiver: ref('Address'), resource: ref('OrderResource'), amount: int64OrNull,
  reclaim_hash: hash, refunded_amount_sun: sun,
};

/** `data` of each event type. */
export const eventData: Record<WebhookEventType, { summary: string; data: Record<string, unknown> }> = {
  'order.confirmed': {
    summary: 'A delegation is confirmed on chain and the receiver\'s limit verified.',
    data: obj({
      order_id: text, client_order_id: textOrNull, batch_id: textOrNull, subscription_id: textOrNull, resource: ref('OrderResource'),
      amount: int64OrNull, delivered_amount: int64OrNull, partial: { type: 'boolean' }, tier: nullable(ref('Tier')), duration_seconds: nullable({ type: 'integer' }),
      receiver: ref('Address'), delegate_hash: hash, delegate_hashes: { type: 'array', items: { type: 'string' } }, delegated_at: nullable(dateTime),
      expires_at: nullable(dateTime), total_amount_sun: sun, refunded_amount_sun: sun,
      activation: obj({ performed: { type: 'boolean' }, hash, amount_sun: sun }),
    }),
  },
  'order.failed': {
    summary: 'The order could not be delivered; terminal; the charge is reversed.',
    data: obj({
      order_id: text, client_order_id: textOrNull, receiver: ref('Address'), resource: ref('OrderResource'), amount: int64OrNull, tier: nullable(ref('Tier')),
      failure: obj({ code: ref('ErrorCode'), slug: ref('ErrorSlug'), message: text }), charged_amount_sun: sun, refunded_amount_sun: sun,
      refund_complete: { type: 'boolean', description: 'false: the reversal is still running; a later balance.credited carries it.' },
    }),
  },
  'order.expired': { summary: 'The rental window ended; the resource was returned.', data: obj({ ...reclaimed, expired_at: dateTime }) },
  'order.reclaimed': { summary: 'The rental was returned early by reclaim.', data: obj({ ...reclaimed, reclaimed_at: dateTime }) },
  'order.refunded': {
    summary: 'A delivered order was reversed and credited back.',
    data: obj({
      order_id: text, client_order_id: textOrNull, receiver: ref('Address'), resource: ref('OrderResource'), amount: int64OrNull,
      delivered_amount: int64OrNull, partial: { type: 'boolean' },
      reason: { type: 'string', enum: ['incident_credit', 'dispute', 'partial_delivery', 'support_adjustment'] },
      charged_amount_sun: sun, refunded_amount_sun: sun, refund_complete: { type: 'boolean' }, refunded_at: dateTime,
    }),
  },
  'batch.completed': {
    summary: 'Every receiver of a batch reached a terminal state; once per batch.',
    data: obj({
      batch_id: text, client_batch_id: textOrNull, status: { type: 'string', enum: ['completed', 'partial', 'failed'] },
      summary: obj(Object.fromEntries(['total', 'completed', 'partial', 'failed', 'insufficient_funds', 'cancelled'].map((k) => [k, { type: 'integer' }]))),
      charged_amount_sun: sun, finished_at: dateTime,
    }),
  },
  'subscription.refilled': {
    summary: 'An auto-refill bought resource for a watched address.',
    data: obj({
      subscription_id: text, order_id: text, receiver: ref('Address'), resource: ref('OrderResource'), amount: { type: 'integer' }, tier: nullable(ref('Tier')),
      trigger_available: { type: 'integer' }, threshold_amount: { type: 'integer' }, total_amount_sun: sun, refills_today: { type: 'integer' },
    }),
  },
  'subscription.suspended': {
    summary: 'A subscription stopped.',
    data: obj({
      subscription_id: text, receiver: ref('Address'), reason: { type: 'string', enum: ['insufficient_funds', 'daily_limit_reached', 'price_above_limit'] },
      required_sun: sun, available_sun: sun,
    }),
  },
  'subscription.paused': {
    summary: 'A plan subscription stopped delegating.',
    data: obj({ subscription_id: text, receiver: ref('Address'), reason: { type: 'string', enum: ['billing_failed', 'reserve_exhausted', 'user'] } }),
  },
  'subscription.charged': {
    summary: 'The daily fee of a plan subscription was charged.',
    data: obj({ subscription_id: text, receiver: ref('Address'), plan: text, amount_sun: sun, next_billing_at: dateTime }),
  },
  'balance.credited': {
    summary: 'A deposit was confirmed and credited, or an internal credit posted.',
    data: obj({
      reason: { type: 'string', enum: ['deposit', 'refund', 'referral', 'adjustment'] }, currency: { type: 'string', enum: ['TRX', 'USDT'] }, amount_sun: sun,
      tx_hash: textOrNull, confirmations: nullable({ type: 'integer' }), balance_sun: nullable(sun), reference_id: textOrNull,
      asset: { type: 'string', enum: ['TRX', 'USDT'] }, usdt_amount: nullable({ type: 'string', description: 'Decimal string.' }), rate: textOrNull,
      rate_source: nullable({ type: 'string', description: '`fixed_env` or `dex_v3@<block>`.' }), spread_bps: nullable({ type: 'integer' }),
      txid: textOrNull, sender: nullable(ref('Address')), block_number: nullable({ type: 'integer' }),
    }),
  },
  'balance.low': {
    summary: 'The available balance fell below the account\'s alert threshold.',
    data: obj({ balance_sun: sun, threshold_sun: sun, estimated_orders_remaining: int64OrNull }),
  },
  'deposit_address.rotated': {
    summary: 'Support rotated the deposit address.',
    data: obj({ address: ref('Address'), retired_address: nullable(ref('Address')), retired_credit_until: nullable(dateTime), rotated_at: dateTime }),
  },
};

const schemaName = (type: string) => `Event_${type.replace(/[^a-z]+/g, '_')}`;

/** The envelope of each event type, `data` typed; a component each so generated clients name them. */
export const eventSchemas = Object.fromEntries(webhookEventTypes.map((type) => [schemaName(type), {
  type: 'object',
  description: eventData[type].summary,
  required: ['event', 'event_id', 'event_version', 'created_at', 'account_id', 'network', 'test', 'data'],
  properties: {
    event: { type: 'string', const: type },
    event_id: { type: 'string', description: 'Dedup on this (it is signed; the X-Event-Id header is not).' },
    event_version: { type: 'integer', description: 'Grows only for a breaking change of `data`.' },
    created_at: { ...dateTime, description: 'When it happened; a retry keeps it.' },
    account_id: text,
    network: { type: 'string', enum: ['mainnet', 'nile'] },
    test: { type: 'boolean', description: 'true only for POST /v1/webhooks/{id}/test: never act on money.' },
    data: eventData[type].data,
  },
}]));

const header = (description: string, schema: unknown = text) => ({ required: true, description, schema });
const deliveryHeaders = {
  'X-API-TIMESTAMP': header('Unix seconds at send time; refuse more than 300 s away.', { type: 'string', pattern: '^[0-9]{1,12}$' }),
  'X-API-SIGN': header('base64(HMAC_SHA256(endpoint secret, X-API-TIMESTAMP + "." + raw body)); verify before parsing, in constant time.'),
  'X-Event-Id': header('The event id (not signed: dedup on the body\'s event_id).'),
  'X-Event-Type': header('The event type.'),
  'X-Event-Version': header('The event version.'),
  'X-Delivery-Id': header('One id per event and endpoint; the backup\'s copy keeps it.'),
  'X-Delivery-Attempt': header('1 for the first attempt.', { type: 'string', pattern: '^[0-9]+$' }),
};

/** The OpenAPI 3.1 `webhooks` map: one POST per event type. */
export const webhooks = Object.fromEntries(webhookEventTypes.map((type) => [type, {
  post: {
    operationId: `webhook_${type.replace(/[^a-z]+/g, '_')}`,
    summary: eventData[type].summary,
    description: `Sent to the endpoints subscribed to \`${type}\`, at least once (retried on any answer but 2xx within 10 s). Verify X-API-SIGN over the raw body, check X-API-TIMESTAMP, then dedup on the signed \`event_id\`.`,
    tags: ['webhooks'],
    security: [],
    parameters: Object.entries(deliveryHeaders).map(([name, h]) => ({ name, in: 'header', ...h })),
    requestBody: { required: true, content: { 'application/json': { schema: ref(schemaName(type)) } } },
    responses: {
      '200': { description: 'Received (any 2xx); a duplicate is acknowledged the same way.' },
      '401': { description: 'The signature or timestamp did not verify: the delivery is retried.' },
    },
  },
}]));
