/** Webhooks (spec section 4): endpoints, secret rotation, the test delivery and the delivery log. */
import { webhookEventTypes } from '../../webhooks/event-types';
import type { Operation } from './operation';
import { ref, json, obj, nullable, dateTime } from './builders';

const eventList = { type: 'array', items: ref('WebhookEventType'), uniqueItems: true, maxItems: webhookEventTypes.length };
const security = (scope: string): Array<Record<string, string[]>> => [{ apiKey: [scope] }, { session: [] }];
const idParam = { name: 'webhookId', in: 'path' as const, required: true, schema: { type: 'string' } };
const tags = ['webhooks'];

export const webhookSchemas = {
  WebhookEventType: { type: 'string', enum: [...webhookEventTypes] },
  WebhookEndpoint: obj({
    id: { type: 'string' }, url: { type: 'string', format: 'uri' }, role: { type: 'string', enum: ['primary', 'backup'] },
    events: nullable(eventList), is_active: { type: 'boolean' }, last_delivery_at: nullable(dateTime),
    last_delivery_status: nullable({ type: 'integer' }), created_at: dateTime, updated_at: dateTime, secret: { type: 'string' },
  }, ['id', 'url', 'role', 'events', 'is_active', 'last_delivery_at', 'last_delivery_status', 'created_at', 'updated_at']),
  WebhookDelivery: obj({
    id: { type: 'string' }, event_id: { type: 'string' }, event: ref('WebhookEventType'), attempt: { type: 'integer' },
    state: { type: 'string', enum: ['pending', 'delivering', 'delivered', 'failed', 'dead'] },
    response_status: nullable({ type: 'integer' }), error: nullable({ type: 'string' }), next_attempt_at: nullable(dateTime),
    delivered_at: nullable(dateTime), created_at: dateTime, updated_at: dateTime,
  }),
};

const urlField = { type: 'string', minLength: 1, maxLength: 8192, description: 'https, public address, no credentials, at most 2048 characters (else 422 3020).' };

export const webhookPaths: Record<string, Record<string, Operation>> = {
  '/v1/webhooks': {
    get: {
      operationId: 'listWebhooks', summary: 'List endpoints; never returns secrets.', tags, security: security('webhooks.read'),
      responses: {
        '200': json('endpoints', obj({ data: { type: 'array', items: ref('WebhookEndpoint') }, max_endpoints: { type: 'integer' }, roles: { type: 'array', items: { type: 'string', enum: ['primary', 'backup'] } } })),
      },
    },
    post: {
      operationId: 'createWebhook', summary: 'Register an endpoint; the secret is returned once.', tags, security: security('webhooks.write'),
      requestBody: { required: true, content: { 'application/json': { schema: obj({ url: urlField, role: { type: 'string', enum: ['primary', 'backup'] }, events: nullable(eventList) }, ['url']) } } },
      responses: { '201': json('endpoint with its secret', ref('WebhookEndpoint')) },
    },
  },
  '/v1/webhooks/{webhookId}': {
    get: {
      operationId: 'getWebhook', summary: 'Read one endpoint.', tags, security: security('webhooks.read'), parameters: [idParam],
      responses: { '200': json('endpoint', ref('WebhookEndpoint')) },
    },
    patch: {
      operationId: 'updateWebhook', summary: 'Edit; role primary on the backup swaps both; is_active false pauses.', tags, security: security('webhooks.write'), parameters: [idParam],
      requestBody: { required: true, content: { 'application/json': { schema: obj({ url: urlField, role: { type: 'string', enum: ['primary', 'backup'] }, events: nullable(eventList), is_active: { type: 'boolean' } }, []) } } },
      responses: { '200': json('endpoint', ref('WebhookEndpoint')) },
    },
    delete: {
      operationId: 'deleteWebhook', summary: 'Hard delete; frees the role; undelivered events are dropped.', tags, security: security('webhooks.write'), parameters: [idParam],
      responses: { '204': { description: 'deleted' } },
    },
  },
  '/v1/webhooks/{webhookId}/rotate-secret': {
    post: {
      operationId: 'rotateWebhookSecret', summary: 'New secret, effective at once, no overlap.', tags, security: security('webhooks.write'), parameters: [idParam],
      responses: { '200': json('the new secret', obj({ id: { type: 'string' }, secret: { type: 'string' } })) },
    },
  },
  '/v1/webhooks/{webhookId}/test': {
    post: {
      operationId: 'testWebhook', summary: 'Synthetic signed delivery with test: true; not retried, not in the log.', tags, security: security('webhooks.write'), parameters: [idParam],
      requestBody: { required: false, content: { 'application/json': { schema: obj({ event: ref('WebhookEventType') }, []) } } },
      responses: {
        '200': json('the outcome', obj({
          delivered: { type: 'boolean' }, event: ref('WebhookEventType'), delivery_id: { type: 'string' }, response_status: nullable({ type: 'integer' }),
          response_body_excerpt: nullable({ type: 'string' }), error: nullable({ type: 'string' }), duration_ms: { type: 'integer' },
        })),
      },
    },
  },
  '/v1/webhooks/{webhookId}/deliveries': {
    get: {
      operationId: 'listWebhookDeliveries', summary: 'Delivery log, newest first; test deliveries not listed.', tags, security: security('webhooks.read'),
      parameters: [
        idParam,
        { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 200, default: 50 } },
        { name: 'cursor', in: 'query', schema: { type: 'string', maxLength: 200 } },
      ],
      responses: { '200': json('deliveries', obj({ data: { type: 'array', items: ref('WebhookDelivery') }, next_cursor: nullable({ type: 'string' }) })) },
    },
  },
};
