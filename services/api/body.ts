/**
 * Reads the raw body (API-key signatures are computed over its exact bytes) and parses it as strict JSON
 * that keeps int64 values exact. Bad JSON answers 400 2000.
 */
import express, { type RequestHandler } from 'express';
import { parseJson } from '../platform/json';
import { ApiError } from './errors';

declare module 'express-serve-static-core' {
  interface Request {
    rawBody?: Buffer;
  }
}

const readRaw = express.raw({ type: () => true, limit: '256kb' });

const parse: RequestHandler = (req, _res, next) => {
  const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
  req.rawBody = raw;
  if (raw.length === 0) {
    req.body = undefined;
    return next();
  }
  const type = req.headers['content-type'] ?? '';
  if (!/^application\/json\b/i.test(type)) {
    return next(new ApiError('invalid_request', 'The body must be JSON (Content-Type: application/json).', { field: 'body' }));
  }
  try {
    req.body = parseJson(raw.toString('utf8'));
  } catch {
    return next(new ApiError('invalid_request', 'The body is not valid JSON.', { field: 'body' }));
  }
  next();
};

export const jsonBody: RequestHandler[] = [readRaw, parse];
