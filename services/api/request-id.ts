import type { RequestHandler } from 'express';
import { randomId } from '../domain/ids';
import { withLogContext } from '../platform/logger';

/** Every answer carries X-Request-Id, and every log line written while serving it carries the same id. */
export const requestId: RequestHandler = (_req, res, next) => {
  const id = randomId('request');
  res.locals.requestId = id;
  res.setHeader('X-Request-Id', id);
  withLogContext({ request_id: id }, next);
};
