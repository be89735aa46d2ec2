/** The express app: request ids, strict JSON, validation from the OpenAPI document, the error envelope. */
import { operationMatcher } from './openapi/operation-paths';
import { admissionGate } from './admission';
import express, { type Express } from 'express';
import type { CommandBus } from '../platform/command-bus';
import type { Runtime } from '../chain/clients';
import { admissionShed, httpDuration, httpRequests } from '../platform/metrics';
import { publicReadBudget } from './auth/budget';
import { jsonBody } from './body';
import { ApiError, errorHandler, sendJson } from './errors';
import { healthRouter } from './health';
import { identityRouters } from './routes/identity';
import { ledgerRouter } from './routes/ledger';
import { UsdtRateSource } from '../deposits/rate';
import { webhooksRouter, type WebhookRouteDeps } from './routes/webhooks';
import { ordersRouter, type OrderRouteDeps } from './routes/orders';
import { promoRouter, type PromoRouteDeps } from './routes/promo';
import { statsRouter } from './routes/stats';
import { batchesRouter } from './routes/batches';
import { subscriptionsRouter } from './routes/subscriptions';
import { estimatesRouter } from './routes/estimates';
import { transferDeskRouter } from './routes/transfer-desk';
import { buildDocument } from './openapi/document';
import { requestId } from './request-id';
import { activeTraceIds, withCallerTrace } from '../platform/telemetry';
import { logger } from '../platform/logger';
import type { AuthContext } from './auth/context';
import { stageTiming } from './stage-timing';
import { dashboardStatic } from './dashboard';
import { RequestValidator } from './validate';
import { declaredErrorCheck } from './declared-errors';

export interface ApiDeps {
  rt: Runtime;
  bus: CommandBus;
  /** Trust anchors and resolver of test deliveries (tests); default: Node's standard store, system DNS. */
  webhooks?: Pick<WebhookRouteDeps, 'ca' | 'resolve'>;
  /** Receiver activation reads (tests); default: the chain adapter on TRON_FULL_HOST. */
  chain?: OrderRouteDeps['chain'];
  /** The promo's drop log (tests); default: read through the chain adapter. */
  promoDrops?: PromoRouteDeps['drops'];
}

export function createApp(deps: ApiDeps): Express {
  const app = express();
  // requireAuth (services/api/auth/require-auth.ts) finds the runtime here.
  app.locals.rt = deps.rt;
  app.disable('x-powered-by');
  // No ETag: answers are read fresh (the contract has no conditional requests), and the hash over every
  // body was a visible share of an API process's CPU under the orders benchmark (bench/README.md,
  // "Order path, API side").
  app.set('etag', false);
  app.set('query parser', 'extended');
  // req.ip (clientIp): X-Forwarded-For is read only from these peers, right to left up to the first untrusted hop.
  app.set('trust proxy', deps.rt.cfg.TRUSTED_PROXIES.length > 0 ? deps.rt.cfg.TRUSTED_PROXIES : false);
  const doc = buildDocument({ mainnet: deps.rt.cfg.PUBLIC_ORIGIN_MAINNET, nile: deps.rt.cfg.PUBLIC_ORIGIN_NILE });
  const validator = new RequestValidator(doc);
  // sendError (errors.ts) holds every error answer to the codes its operation declares.
  app.locals.declaredErrorCheck = declaredErrorCheck(doc);

  // First of all: a request the process cannot answer in time is answered 503 now, before any per-request
  // work (request id, trace, log line, body, auth): under overload most requests are these, and each must
  // cost next to nothing, or answering them saturates the process they protect.
  app.use(admissionGate(
    { maxInFlight: deps.rt.cfg.ADMISSION_MAX_IN_FLIGHT, targetMs: deps.rt.cfg.ADMISSION_TARGET_MS, latencyMs: deps.rt.cfg.ADMISSION_LATENCY_MS },
    (reason) => admissionShed.inc({ reason }),
  ));
  // One layer for what every request gets (each layer is a router dispatch of its own): the request id and
  // its log context, the caller's trace context (without an exporter no HTTP instrumentation runs: a
  // caller's own trace context still reaches the log), the Server-Timing stages and the answer's count.
  app.use((req, res, next) => {
    const started = performance.now();
    let trace: ReturnType<typeof activeTraceIds>;
    res.on('finish', () => {
      const labels = { method: req.method, route: req.route?.path ?? 'unmatched', status: res.statusCode };
      const seconds = (performance.now() - started) / 1000;
      httpRequests.inc(labels);
      httpDuration.observe(labels, seconds);
      // One line per request: what a customer's X-Request-Id is looked up by.
      logger.info({
        ...labels, duration_ms: Math.round(seconds * 10_000) / 10, request_id: res.locals.requestId,
        account_id: (res.locals.auth as AuthContext | undefined)?.accountId ?? undefined, ...trace,
      }, 'request');
    });
    requestId(req, res, () => withCallerTrace(req.headers, () => {
      trace = activeTraceIds();
      stageTiming(req, res, next);
    }));
  });
  // A body is read and parsed only for a route that exists (after the admission above); any other request
  // goes on unread to the 404 at the end.
  const isOperation = operationMatcher(doc);
  app.use((req, res, next) => (isOperation(req.method, req.path) ? jsonBody(req, res, next) : next()));
  // First: the hot path (POST /v1/orders, GET /v1/orders/{id} polling) then matches without walking the 36
  // routes of the routers below, a visible share of an API process's CPU per order (bench/README.md,
  // "Figures formerly quoted in code comments"). No other
  // router declares a path under /v1/orders, /v1/prices or /v1/quotes, so nothing is shadowed.
  app.use(ordersRouter({ rt: deps.rt, bus: deps.bus, validator, chain: deps.chain ?? deps.rt.chain.reader }));
  app.use(healthRouter(deps.rt));
  app.get('/v1/openapi.json', validator.for('openapi'), publicReadBudget(deps.rt), (_req, res) => sendJson(res, 200, doc));
  // rate_now of the deposit-address reads: the USDT rate, cached 60 s.
  const rates = new UsdtRateSource(deps.rt.cfg, deps.rt.chain.reader, deps.rt.clock);
  app.use(...identityRouters({ rt: deps.rt, bus: deps.bus, validator, rate: rates.rateNow }));
  app.use(ledgerRouter({ rt: deps.rt, validator }));
  app.use(webhooksRouter({ rt: deps.rt, bus: deps.bus, validator, ...deps.webhooks }));
  app.use(promoRouter({ rt: deps.rt, bus: deps.bus, validator, drops: deps.promoDrops }));
  app.use(statsRouter({ rt: deps.rt, validator }));
  app.use(batchesRouter({ rt: deps.rt, bus: deps.bus, validator }));
  app.use(subscriptionsRouter({ rt: deps.rt, bus: deps.bus, validator }));
  app.use(estimatesRouter({ rt: deps.rt, validator }));
  app.use(transferDeskRouter({ rt: deps.rt, validator }));

  // The web dashboard at `/` (after every API router, so it never shadows one).
  app.use(dashboardStatic());
  app.use((_req, _res, next) => next(new ApiError('not_found', 'No such endpoint.')));
  app.use(errorHandler);
  return app;
}
