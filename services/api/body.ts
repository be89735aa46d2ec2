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

const LIMIT_BYTES = 256 * 1024;
const readRaw = express.raw({ type: () => true, limit: LIMIT_BYTES });
const EMPTY = Buffer.alloc(0);

/** An error as body-parser makes them (status 400), so the error handler answers 400 2000 as before. */
function readError(message: string): Error {
  return Object.assign(new Error(message), { status: 400, statusCode: 400, expose: true });
}

/**
 * The plain case without body-parser (raw-body, type-is, on-finished: a visible share of an API process's
 * busy time per order, bench/README.md, "Figures formerly quoted in code comments"): no body at all,
 * or a Content-Length within the limit and neither Transfer-Encoding nor
 * Content-Encoding. Everything else (chunked, compressed, a declared length past the limit) still goes
 * through express.raw, whose answers (413, 415, 400) stay as they were.
 */
const read: RequestHandler = (req, res, next) => {
  const { headers } = req;
  const length = headers['content-length'];
  if (headers['transfer-encoding'] === undefined && headers['content-encoding'] === undefined) {
    if (length === undefined) return parse(req, res, next, EMPTY);
    if (/^\d{1,7}$/.test(length) && Number(length) <= LIMIT_BYTES) return readLength(req, res, next, Number(length));
  }
  readRaw(req, res, (err?: unknown) => (err ? next(err) : parse(req, res, next, Buffer.isBuffer(req.body) ? req.body : EMPTY)));
};

function readLength(req: express.Request, res: express.Response, next: express.NextFunction, expected: number): void {
  if (expected === 0) return parse(req, res, next, EMPTY);
  const chunks: Buffer[] = [];
  let received = 0;
  const done = (err: unknown) => {
    req.off('data', onData);
    req.off('end', onEnd);
    req.off('error', onAborted);
    req.off('close', onAborted);
    if (err) {
      // Read off whatever is left, as body-parser does, before answering.
      req.resume();
      next(err);
    } else {
      parse(req, res, next, chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, received));
    }
  };
  const onData = (chunk: Buffer) => {
    received += chunk.length;
    chunks.push(chunk);
  };
  const onEnd = () => done(received === expected ? null : readError('request size did not match content length'));
  // The request stream fails only when the client went away mid-body (node's ECONNRESET "aborted"), as does a
  // close before its end: the client's doing, answered 400 to a closed socket, never taken for the database away.
  const onAborted = () => done(readError('request aborted'));
  req.on('data', onData);
  req.on('end', onEnd);
  req.on('error', onAborted);
  req.on('close', onAborted);
}

function parse(req: express.Request, _res: express.Response, next: express.NextFunction, raw: Buffer): void {
  req.rawBody = raw;
  if (raw.length === 0) {
    req.body = undefined;
    return next();
  }
  const type = req.headers['content-type'] ?? '';
  if (!/^application\/json\b/i.test(type)) {
    return next(new ApiError('invalid_request', 'The body must be JSON (Content-Type: application/json).', { field: 'body' }));
  }
  const text = raw.toString('utf8');
  if (nestingDepth(text) > MAX_DEPTH) {
    return next(new ApiError('invalid_request', `The body nests deeper than ${MAX_DEPTH} levels.`, { field: 'body' }));
  }
  try {
    req.body = parseJson(text);
  } catch {
    return next(new ApiError('invalid_request', 'The body is not valid JSON.', { field: 'body' }));
  }
  next();
}

/**
 * No request body of the API nests past a few levels; a deep one (`[[[[...` up to the size limit) sent
 * recursive code (key counting, schema validation) past the stack into a 500. Refused before parsing.
 */
export const MAX_DEPTH = 32;

/** The deepest nesting of arrays and objects in JSON text, brackets inside strings not counted. */
export function nestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > deepest) deepest = depth;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return deepest;
}

export const jsonBody: RequestHandler = read;
