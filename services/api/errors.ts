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

export function sendJson(res: Response, status: number, body: unknown): void {
  const timing = serverTiming(res);
  if (timing) res.setHeader('Server-Timing', timing);
  res.status(status).type('application/json; charset=utf-8').send(stringifyJson(body));
}

export function sendError(res: Response, error: ApiError): void {
  const entry = errorCatalog[error.slug];
  for (const [k, v] of Object.entries(error.headers)) res.setHeader(k, v);
  sendJson(res, entry.http, {
    error: { code: entry.code, slug: error.slug, message: error.message, details: error.details },
    request_id: res.locals.requestId ?? null,
  });
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
