/** The error envelope of contract.md section 1; no stack trace or internal message ever reaches a client. */
import type { ErrorRequestHandler, Response } from 'express';
import { errorCatalog, type DomainError, type ErrorSlug } from '../domain/errors';
import { stringifyJson } from '../platform/json';
import { isConnectionError } from '../platform/db/pool';
import { logger } from '../platform/logger';
import { serverTiming } from './stage-timing';

export class ApiError extends Error {
  constructor(
    readonly slug: ErrorSlug,
    message?: string,
    readonly details: Record<string, unknown> | null = null,
    readonly headers: Record<string, string> = {},
  ) {
    super(message ?? errorCatalog[slug].message);
  }

  static from(error: DomainError): ApiError {
    return new ApiError(error.slug, error.message, error.details ?? null);
  }
}

/**
 * Writes the answer with node's response directly: express's `type()` + `send()` parse and re-format the
 * content type twice per answer and check freshness (no ETag or Last-Modified is ever set here), a visible
 * share of an API process under the orders benchmark (bench/README.md, "Figures formerly quoted in code comments").
 * HEAD answers carry no body (node drops it); 204 and 304 none.
 */
export function sendJson(res: Response, status: number, body: unknown): void {
  // The client closed the connection (it gave up waiting): writing would only build an ERR_STREAM_DESTROYED.
  if (res.destroyed) return;
  const timing = serverTiming(res);
  if (timing) res.setHeader('Server-Timing', timing);
  res.statusCode = status;
  if (status === 204 || status === 304) {
    res.end();
    return;
  }
  const text = stringifyJson(body);
  res.setHeader('Content-Type', JSON_TYPE);
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

const JSON_TYPE = 'application/json; charset=utf-8';

/** The envelope of contract section 1 for an error of the catalog. */
export function errorEnvelope(slug: ErrorSlug, message: string, details: Record<string, unknown> | null, requestId: string | null): Record<string, unknown> {
  return { error: { code: errorCatalog[slug].code, slug, message, details }, request_id: requestId };
}

export function sendError(res: Response, error: ApiError): void {
  // The app's check of the operation's declared codes (declared-errors.ts); absent outside createApp.
  const check = res.app?.locals.declaredErrorCheck as ((req: Response['req'], slug: ErrorSlug) => void) | undefined;
  if (check && res.req) check(res.req, error.slug);
  for (const [k, v] of Object.entries(error.headers)) res.setHeader(k, v);
  sendJson(res, errorCatalog[error.slug].http, errorEnvelope(error.slug, error.message, error.details, res.locals.requestId ?? null));
}

export const errorHandler: ErrorRequestHandler = (err, req, res, _next) => {
  if (err instanceof ApiError) return sendError(res, err);
  // express's own errors (body too large, aborted request) carry a 4xx status; keep them 4xx.
  const status = typeof err?.status === 'number' ? err.status : 500;
  if (status >= 400 && status < 500) return sendError(res, new ApiError('invalid_request', String(err.message ?? 'Bad request')));
  // The database away (restart, failover): a 503 the client retries, not a 500.
  if (isConnectionError(err)) {
    logger.warn({ err, path: req.path }, 'database unavailable');
    return sendError(res, new ApiError('service_unavailable'));
  }
  logger.error({ err, path: req.path }, 'unhandled error');
  sendError(res, new ApiError('internal_error'));
};
