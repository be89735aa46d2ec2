import { randomBytes } from 'node:crypto';
import type { RequestHandler } from 'express';
import { idPrefixes } from '../domain/ids';
import { withLogContext } from '../platform/logger';

/** Random bytes drawn 4 KB at a time: one randomBytes call per 341 request ids instead of one per request. */
const ID_BYTES = 12;
let pool = Buffer.alloc(0);
let used = 0;

/** `req_` + 24 hex characters, as randomId('request') gives. */
function requestIdOf(): string {
  if (used + ID_BYTES > pool.length) {
    pool = randomBytes(4096);
    used = 0;
  }
  const id = idPrefixes.request + pool.toString('hex', used, used + ID_BYTES);
  used += ID_BYTES;
  return id;
}

/** Every answer carries X-Request-Id, and every log line written while serving it carries the same id. */
export const requestId: RequestHandler = (_req, res, next) => {
  const id = requestIdOf();
  res.locals.requestId = id;
  res.setHeader('X-Request-Id', id);
  withLogContext({ request_id: id }, next);
};
