/**
 * One webhook attempt over HTTPS: the URL is checked again (form, resolution, every address), the
 * connection goes to the checked address only (a `lookup` that answers with it, so a second DNS answer
 * is never asked for), redirects are not followed (a 3xx is a failure like any non-2xx), and the answer
 * must be complete within the answer limit. The certificate is verified against the URL's host name.
 */
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { checkTarget, type Resolver } from './url-check';

export const EXCERPT_BYTES = 512;
/** A body larger than this is not read to the end (the status decides, the excerpt is its start). */
const MAX_BODY_BYTES = 64 * 1024;

export interface SendOptions {
  allowPrivate: boolean;
  /** Real milliseconds the receiver has to answer completely. */
  answerLimitMs: number;
  /** Trust anchors; default: Node's standard store (plus NODE_EXTRA_CA_CERTS). */
  ca?: string | Buffer | Array<string | Buffer>;
  resolve?: Resolver;
  agent?: https.Agent;
}

export interface AttemptOutcome {
  ok: boolean;
  /** HTTP status, null when no answer came. */
  status: number | null;
  /** Transport failure (or rejected URL), null when an answer came. */
  error: string | null;
  /** The first 512 bytes of the answer, as text. */
  excerpt: string | null;
  durationMs: number;
}

/**
 * Keep-alive agent for a sender (connections reused per host and port); `maxSockets` per host is the
 * sender's concurrency, so attempts to one host never queue in the agent behind a fixed socket cap.
 */
export function webhookAgent(ca?: SendOptions['ca'], maxSockets = 64): https.Agent {
  return new https.Agent({ keepAlive: true, maxSockets, ca });
}

export async function sendAttempt(
  url: string, request: { body: Buffer; headers: Record<string, string> }, options: SendOptions,
): Promise<AttemptOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const target = await checkTarget(url, { allowPrivate: options.allowPrivate, resolve: options.resolve });
  if (!target.ok) return { ok: false, status: null, error: `url_rejected: ${target.reason}`, excerpt: null, durationMs: elapsed() };

  const pinned = target.address;
  const lookup: LookupFunction = (_host, opts, callback) => {
    if ((opts as { all?: boolean }).all) (callback as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [pinned]);
    else callback(null, pinned.address, pinned.family);
  };

  return new Promise<AttemptOutcome>((resolve) => {
    let settled = false;
    const finish = (outcome: Omit<AttemptOutcome, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...outcome, durationMs: elapsed() });
    };
    const req = https.request(
      {
        protocol: 'https:',
        host: target.host,
        port: target.url.port || 443,
        path: `${target.url.pathname}${target.url.search}`,
        method: 'POST',
        headers: request.headers,
        // Every new connection goes to the checked address; a kept-alive one was checked when it opened.
        lookup,
        family: pinned.family,
        agent: options.agent,
        ca: options.ca,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const done = () => {
          const status = res.statusCode ?? null;
          const excerpt = Buffer.concat(chunks).subarray(0, EXCERPT_BYTES).toString('utf8');
          finish({ ok: status !== null && status >= 200 && status < 300, status, error: null, excerpt });
        };
        res.on('data', (chunk: Buffer) => {
          if (size < EXCERPT_BYTES) chunks.push(chunk);
          size += chunk.length;
          if (size > MAX_BODY_BYTES) {
            done();
            res.destroy();
          }
        });
        res.on('end', done);
        res.on('error', (err) => finish({ ok: false, status: null, error: transportError(err), excerpt: null }));
      },
    );
    const timer = setTimeout(() => {
      finish({ ok: false, status: null, error: 'timeout: no complete answer within the answer limit', excerpt: null });
      req.destroy();
    }, options.answerLimitMs);
    req.on('error', (err) => finish({ ok: false, status: null, error: transportError(err), excerpt: null }));
    req.end(request.body);
  });
}

function transportError(err: Error & { code?: string }): string {
  return `connection_failed: ${err.code ?? err.message}`.slice(0, 300);
}
