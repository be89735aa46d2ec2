/**
 * Webhooks (spec section 4): two endpoints per account (primary, backup), URL checks on create and on
 * every edit, secrets returned once and stored sealed, the synthetic test delivery and the delivery log.
 * API key (webhooks.read / webhooks.write) or dashboard session; the bootstrap token is refused (401).
 */
import { Router, type Response } from 'express';
import { randomId } from '../../domain/ids';
import { EVENT_VERSION } from '../../domain/events';
import type { Runtime } from '../../chain/clients';
import { realAnswerLimitMs } from '../../dispatcher/dispatcher';
import { sendAttempt, type SendOptions } from '../../webhooks/http-client';
import { webhookSecretBox } from '../../webhooks/secrets';
import { envelopeBytes, newEndpointSecret, signedRequest } from '../../webhooks/signing';
import { sampleEventData } from '../../webhooks/samples';
import { checkTarget, type Resolver } from '../../webhooks/url-check';
import { findEndpoint, listDeliveries, listEndpoints, type DeliveryCursor, type DeliveryLogRow, type EndpointRow } from '../../webhooks/endpoint-store';
import type { CommandBus } from '../../platform/command-bus';
import { submitCommand } from '../identity-deps';
import { accountIdOf, requireAuth } from '../auth/require-auth';
import { cursorInstant, cursorSeq, invalidCursor } from '../cursor';
import { ApiError, sendJson } from '../errors';
import type { RequestValidator } from '../validate';

export const MAX_ENDPOINTS = 2;
const ROLES = ['primary', 'backup'] as const;

export interface WebhookRouteDeps {
  rt: Runtime;
  /** Endpoint changes are commands on the log (so a restore brings them back); the answer waits for the processor. */
  bus: CommandBus;
  validator: RequestValidator;
  /** Trust anchors and resolver for test deliveries; default: Node's standard store and the system resolver. */
  ca?: SendOptions['ca'];
  resolve?: Resolver;
}

const endpointJson = (e: EndpointRow) => ({
  id: e.id, url: e.url, role: e.role, events: e.events, is_active: e.isActive,
  last_delivery_at: e.lastDeliveryAt ? e.lastDeliveryAt.toISOString() : null, last_delivery_status: e.lastDeliveryStatus,
  created_at: e.createdAt.toISOString(), updated_at: e.updatedAt.toISOString(),
});

const deliveryJson = (d: DeliveryLogRow) => ({
  id: d.id, event_id: d.eventId, event: d.eventType, attempt: d.attempt,
  // Between two attempts the log says failed; a claim that lapsed mid-attempt reads as delivering.
  state: d.state, response_status: d.responseStatus, error: d.error,
  next_attempt_at: d.nextAttemptAt && (d.state === 'pending' || d.state === 'failed') ? d.nextAttemptAt.toISOString() : null,
  delivered_at: d.deliveredAt ? d.deliveredAt.toISOString() : null, created_at: d.createdAt.toISOString(), updated_at: d.updatedAt.toISOString(),
});

function encodeCursor(d: DeliveryLogRow): string {
  return Buffer.from(`${d.createdAt.toISOString()}|${d.seq}|${d.id}`).toString('base64url');
}

function decodeCursor(text: string): DeliveryCursor {
  const [at, seq, id] = Buffer.from(text, 'base64url').toString('utf8').split('|');
  if (!id || !/^dlv_[0-9A-Za-z_-]{1,64}$/.test(id)) throw invalidCursor();
  return { createdAt: cursorInstant(at ?? ''), seq: cursorSeq(seq ?? ''), id };
}

/**
 * What the test delivery tells its caller about a failure: a refused URL keeps its reason, but every
 * transport failure (refused, reset, TLS, timeout) is the one `connection_failed`, so the endpoint
 * cannot be used to tell a closed port from an open one.
 */
export function testError(error: string | null): string | null {
  if (error === null || error.startsWith('url_rejected')) return error;
  return 'connection_failed';
}

export function webhooksRouter(deps: WebhookRouteDeps): Router {
  const { rt, bus, validator } = deps;
  const box = webhookSecretBox(rt.cfg);
  const router = Router();
  const read = requireAuth({ apiKey: { scope: 'webhooks.read' }, session: { minRole: 'viewer' } });
  const write = requireAuth({ apiKey: { scope: 'webhooks.write' }, session: { minRole: 'editor' } });

  const checkUrl = async (url: string) => {
    const verdict = await checkTarget(url, { allowPrivate: rt.cfg.WEBHOOK_ALLOW_PRIVATE_TARGETS, resolve: deps.resolve });
    if (!verdict.ok) throw new ApiError('webhook_url_rejected', verdict.message, { reason: verdict.reason });
  };
  const owned = async (res: Response, id: string) => {
    const endpoint = await findEndpoint(rt.pool, accountIdOf(res), id);
    if (!endpoint) throw new ApiError('not_found');
    return endpoint;
  };

  router.get('/v1/webhooks', read, validator.for('listWebhooks'), async (_req, res) => {
    const endpoints = await listEndpoints(rt.pool, accountIdOf(res));
    sendJson(res, 200, { data: endpoints.map(endpointJson), max_endpoints: MAX_ENDPOINTS, roles: [...ROLES] });
  });

  router.post('/v1/webhooks', write, validator.for('createWebhook'), async (req, res) => {
    const accountId = accountIdOf(res);
    const body = req.body as { url: string; role?: 'primary' | 'backup'; events?: string[] | null };
    await checkUrl(body.url);
    // Answered here when already plain (nothing appended for a request that changes nothing); the
    // processor checks again over its own state, which decides between concurrent requests.
    const taken = new Set((await listEndpoints(rt.pool, accountId)).map((e) => e.role));
    const free = body.role ?? ROLES.find((r) => !taken.has(r));
    if (!free || taken.has(free)) throw new ApiError('webhook_limit_reached', free ? `The ${free} role is taken.` : undefined);
    const id = randomId('webhookEndpoint');
    const secret = newEndpointSecret();
    // The processor picks the free role and refuses a taken one over its own state (concurrent creates included).
    await submitCommand(bus, { type: 'webhook.create', accountId, endpointId: id, url: body.url, role: body.role ?? null, events: body.events ?? null, secretSealed: box.seal(id, secret) });
    sendJson(res, 201, { ...endpointJson(await owned(res, id)), secret });
  });

  router.get('/v1/webhooks/:webhookId', read, validator.for('getWebhook'), async (req, res) => {
    sendJson(res, 200, endpointJson(await owned(res, String(req.params.webhookId))));
  });

  router.patch('/v1/webhooks/:webhookId', write, validator.for('updateWebhook'), async (req, res) => {
    const body = req.body as { url?: string; role?: 'primary' | 'backup'; events?: string[] | null; is_active?: boolean };
    if (body.url !== undefined) await checkUrl(body.url);
    const endpointId = (await owned(res, String(req.params.webhookId))).id;
    await submitCommand(bus, {
      type: 'webhook.update', accountId: accountIdOf(res), endpointId, url: body.url ?? null, role: body.role ?? null,
      setEvents: body.events !== undefined, events: body.events ?? null, isActive: body.is_active ?? null, secretSealed: null,
    });
    sendJson(res, 200, endpointJson(await owned(res, endpointId)));
  });

  router.delete('/v1/webhooks/:webhookId', write, validator.for('deleteWebhook'), async (req, res) => {
    const endpoint = await owned(res, String(req.params.webhookId));
    await submitCommand(bus, { type: 'webhook.delete', accountId: endpoint.accountId, endpointId: endpoint.id });
    res.status(204).end();
  });

  router.post('/v1/webhooks/:webhookId/rotate-secret', write, validator.for('rotateWebhookSecret'), async (req, res) => {
    const endpoint = await owned(res, String(req.params.webhookId));
    const secret = newEndpointSecret();
    await submitCommand(bus, {
      type: 'webhook.update', accountId: endpoint.accountId, endpointId: endpoint.id, url: null, role: null, setEvents: false, events: null, isActive: null,
      secretSealed: box.seal(endpoint.id, secret),
    });
    sendJson(res, 200, { id: endpoint.id, secret });
  });

  router.post('/v1/webhooks/:webhookId/test', write, validator.for('testWebhook'), async (req, res) => {
    const endpoint = await owned(res, String(req.params.webhookId));
    const event = (req.body as { event?: string } | undefined)?.event ?? 'balance.credited';
    const now = rt.clock.now();
    const deliveryId = randomId('delivery');
    const body = envelopeBytes({
      eventId: randomId('event'), type: event, eventVersion: EVENT_VERSION, createdAt: now, accountId: endpoint.accountId,
      network: rt.cfg.NETWORK, data: sampleEventData(event, now),
    }, true);
    let secret: string;
    try {
      secret = box.open(endpoint.id, endpoint.secretSealed);
    } catch {
      // Sealed under a key this process does not hold (a key rotation half done): nothing can be signed.
      throw new ApiError('service_unavailable', 'The endpoint secret cannot be read right now; retry later.');
    }
    const request = signedRequest(secret, body, {
      eventId: JSON.parse(body.toString('utf8')).event_id, eventType: event, eventVersion: EVENT_VERSION, deliveryId, attempt: 1,
      timestampSeconds: Math.floor(now / 1000), userAgent: `${rt.cfg.BRAND}-webhook/1`,
    });
    const answer = await sendAttempt(endpoint.url, request, {
      allowPrivate: rt.cfg.WEBHOOK_ALLOW_PRIVATE_TARGETS, answerLimitMs: realAnswerLimitMs(rt.clock), ca: deps.ca, resolve: deps.resolve,
    });
    sendJson(res, 200, {
      delivered: answer.ok, event, delivery_id: deliveryId, response_status: answer.status,
      response_body_excerpt: answer.excerpt, error: testError(answer.error), duration_ms: answer.durationMs,
    });
  });

  router.get('/v1/webhooks/:webhookId/deliveries', read, validator.for('listWebhookDeliveries'), async (req, res) => {
    const endpoint = await owned(res, String(req.params.webhookId));
    const query = res.locals.query as { limit?: number; cursor?: string };
    const limit = query.limit ?? 50;
    const rows = await listDeliveries(rt.pool, endpoint.id, limit + 1, query.cursor ? decodeCursor(query.cursor) : null);
    const page = rows.slice(0, limit);
    sendJson(res, 200, { data: page.map(deliveryJson), next_cursor: rows.length > limit ? encodeCursor(page[page.length - 1]) : null });
  });

  return router;
}

