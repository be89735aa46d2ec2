import type { IncomingMessage, ServerResponse } from 'node:http';
import querystring from 'node:querystring';
import type { Router } from 'express';
import type { DevnetNode } from '../node';
import { MAX_BODY_BYTES, readBody } from './body';
import { failureAnswer, READS_FAILING } from './failures';
import { jsonText, paramsFrom, paramsOf, type Params } from './params';

/** A node read: its parameters in, the value answered out (printed by jsonText). */
export type Read = (p: Params) => unknown;

/** The reads by exact path, for the fast path; express serves the same reads for every other spelling. */
export type Reads = Map<string, Read> & { postOnly?: Set<string> };

/**
 * Registers a read with express (any path spelling express matches) and for the fast path; any method, or
 * POST only for what java-tron serves to POST only (its servlet's doGet answers nothing: contract simulations).
 */
export function serveRead(router: Router, reads: Reads, path: string, read: Read, method: 'all' | 'post' = 'all'): void {
  reads.set(path, read);
  if (method === 'post') (reads.postOnly ??= new Set()).add(path);
  router[method](path, (req, res) => {
    const p = paramsOf(req);
    res.status(200).type('application/json').send(jsonText(p, read(p)));
  });
}

const JSON_TYPE = 'application/json; charset=utf-8';
// Bodies express.text would decode otherwise (compressed, another charset): left to express.
const OTHER_CHARSET = /charset\s*=\s*"?(?!utf-?8\b)/i;

function send(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': JSON_TYPE, 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/**
 * The node reads (accounts, resources, delegations, blocks, transaction infos) straight off node:http, as
 * broadcasts are: a batch of 100 receivers makes several reads per receiver, and express's per-request work
 * (the walk over ~90 routes, body and query middleware, res.send) cost more than the reads themselves.
 * Same answers byte for byte (body, status, content type) as the express routes, which still serve
 * everything this does not take (returns false): other methods, paths spelled otherwise, unusual bodies.
 */
export function readHandler(node: DevnetNode, reads: Reads) {
  return (req: IncomingMessage, res: ServerResponse): boolean => {
    if (req.method !== 'GET' && req.method !== 'POST') return false;
    const url = req.url ?? '';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const read = reads.get(path);
    if (!read || (req.method === 'GET' && reads.postOnly?.has(path))) return false;
    const encoding = req.headers['content-encoding'];
    if ((encoding && encoding !== 'identity') || OTHER_CHARSET.test(req.headers['content-type'] ?? '')) return false;
    if (Number(req.headers['content-length'] ?? 0) > MAX_BODY_BYTES) return false;

    readBody(req, (body) => {
      // fail_reads_ms fault, as the express middleware answers it.
      if (node.faults.readsFailing(Date.now())) return send(res, 503, JSON.stringify(READS_FAILING));
      let text: string;
      try {
        const query = q < 0 ? {} : querystring.parse(url.slice(q + 1));
        const p = paramsFrom(query, body.length ? body.toString('utf8') : undefined);
        text = jsonText(p, read(p));
      } catch (err) {
        const { status, body } = failureAnswer(err, path);
        return send(res, status, JSON.stringify(body));
      }
      send(res, 200, text);
    });
    return true;
  };
}
