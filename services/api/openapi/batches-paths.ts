/** Batches (spec section 4, Batches; section 2, Batch and BatchItem). */
import { allTiers, orderResources } from '../../domain/pricing';
import { itemStatuses } from '../../domain/batches/rules';
import type { Operation } from './operation';
import { ref, json, obj, nullable, dateTime } from './builders';

const tags = ['batches'];
// A dashboard session opens the batch routes as it opens orders (viewer reads; editor or owner writes with X-CSRF-Token).
const write: Array<Record<string, string[]>> = [{ apiKey: ['orders.write'] }, { session: [] }];
const read: Array<Record<string, string[]>> = [{ apiKey: ['orders.read'] }, { session: [] }];
const batchIdParam = { name: 'batchId', in: 'path' as const, required: true, schema: { type: 'string', maxLength: 200 }, description: 'bat_ id or cid:<client_batch_id>' };
const idempotencyKey = { name: 'Idempotency-Key', in: 'header' as const, schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{8,128}$' } };

/** Item options shared by `defaults` and each item; int64 `max_price_sun` may arrive as a bigint (validate.ts). */
const itemOptions = {
  resource: { type: 'string', enum: [...orderResources] },
  amount: { type: 'integer', minimum: 1, maximum: 1_000_000_000 },
  tier: { type: 'string', enum: [...allTiers] },
  activate: { type: 'boolean' },
  bandwidth: { type: 'boolean' },
  bandwidth_amount: { type: 'integer', minimum: 1, maximum: 1_000_000_000 },
  max_price_sun: { type: 'integer', format: 'int64', minimum: 0, description: 'int64 SUN' },
  client_order_id_prefix: { type: 'string', minLength: 1, maxLength: 64 },
};

export const batchSchemas = {
  BatchItem: {
    type: 'object',
    required: ['receiver', 'tracking_id', 'status'],
    properties: {
      receiver: ref('Address'), tracking_id: { type: 'string' }, status: { type: 'string', enum: [...itemStatuses] },
      order_ids: { type: 'array', items: { type: 'string' } }, delegate_hashes: { type: 'array', items: { type: 'string' } },
      charged_amount_sun: ref('Sun'),
      // Spec: the list form does not guarantee the sub-fields of activation and bandwidth, so none is required.
      activation: { type: 'object', properties: { status: { type: 'string' }, hash: nullable({ type: 'string' }) } },
      bandwidth: { type: 'object', properties: { status: { type: 'string' }, order_id: nullable({ type: 'string' }), skip_reason: nullable({ type: 'string' }) } },
      started_at: nullable(dateTime), finished_at: nullable(dateTime),
      resource: ref('OrderResource'), amount: nullable({ type: 'integer' }), tier: nullable(ref('Tier')), delivered_amount: nullable({ type: 'integer' }),
      attempts: { type: 'integer' }, failure: nullable(obj({ code: { type: 'integer' }, slug: { type: 'string' }, message: { type: 'string' } })),
    },
  },
  Batch: {
    type: 'object',
    required: ['id', 'status', 'items_accepted', 'summary', 'items', 'created_at'],
    properties: {
      id: { type: 'string' }, client_batch_id: nullable({ type: 'string' }),
      status: { type: 'string', enum: ['queued', 'processing', 'completed', 'partial', 'failed', 'cancelled'] },
      items_accepted: { type: 'integer' }, summary: { type: 'object', properties: Object.fromEntries(['total', 'queued', 'processing', 'completed', 'partial', 'failed', 'insufficient_funds', 'cancelled'].map((k) => [k, { type: 'integer' }])) }, items: { type: 'array', items: ref('BatchItem') },
      created_at: dateTime, finished_at: nullable(dateTime),
    },
  },
};

export const batchPaths: Record<string, Record<string, Operation>> = {
  '/v1/batches': {
    get: {
      operationId: 'listBatches', summary: 'Batches, newest first.', tags, security: read,
      parameters: [
        { name: 'status', in: 'query', schema: { type: 'string', enum: ['queued', 'processing', 'completed', 'partial', 'failed', 'cancelled'] } },
        { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 200, default: 50 } },
        { name: 'cursor', in: 'query', schema: { type: 'string', maxLength: 200 } },
      ],
      responses: { '200': json('batches', obj({ data: { type: 'array', items: ref('Batch') }, next_cursor: nullable({ type: 'string' }) })) },
    },
    post: {
      operationId: 'createBatch', summary: 'Queues up to limits.max_batch_receivers receivers; nothing charged until each executes.', tags, security: write,
      parameters: [idempotencyKey],
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: obj({
              client_batch_id: { type: 'string', minLength: 1, maxLength: 128 },
              defaults: obj(itemOptions, []),
              // Bounded for parsing; above limits.max_batch_receivers the route answers 2004.
              items: { type: 'array', minItems: 1, maxItems: 1000, items: obj({ receiver: ref('Address'), ...itemOptions, for_transfer: ref('ForTransfer') }, ['receiver']) },
            }, ['items']),
          },
        },
      },
      responses: { '200': json('the original batch', ref('Batch')), '202': json('queued', ref('Batch')) },
    },
  },
  '/v1/batches/{batchId}': {
    get: {
      operationId: 'getBatch', summary: 'One batch; `receiver` narrows items to that receiver.', tags, security: read,
      parameters: [batchIdParam, { name: 'receiver', in: 'query', schema: { type: 'string', maxLength: 64 } }],
      responses: { '200': json('batch', ref('Batch')) },
    },
  },
  '/v1/batches/{batchId}/cancel': {
    post: {
      operationId: 'cancelBatch', summary: 'Cancels receivers not picked up yet; running ones continue.', tags, security: write, parameters: [batchIdParam],
      responses: { '200': json('cancelled', obj({ id: { type: 'string' }, cancelled: { type: 'integer' } })) },
    },
  },
};
