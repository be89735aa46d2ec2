/**
 * The retry loop both entries send through (index: signed with an API key, browser: session + CSRF).
 * `prepare` sets the credentials on each attempt afresh (a write signature is accepted once); retry.ts
 * decides whether and when to send again, waiting what Retry-After asks. No Node modules here: the
 * browser bundle includes this file.
 */
import { isReplaySafe, retryDelay, type AttemptOutcome, type RetryPolicy } from './retry';

export interface Attempt {
  method: string;
  /** Path and query as sent (what a signature covers). */
  target: string;
  body: string;
}

export interface RetryingFetchOptions {
  /** Adds this attempt's credentials to `headers`. */
  prepare(headers: Headers, attempt: Attempt): Promise<void> | void;
  retry: RetryPolicy;
  fetch: typeof fetch;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  /** The browser entry sends the session cookie: 'same-origin'. */
  credentials?: 'omit' | 'same-origin' | 'include';
  /** 0..1 for the retry jitter; default Math.random. */
  random?: () => number;
  /** Each attempt is abandoned after this long (a network error: retried only when replay-safe); 0: never. */
  timeoutMs?: number;
}

/** How long an attempt may take by default, in both entries. */
export const DEFAULT_TIMEOUT_MS = 30_000;

/** An attempt (the last one allowed) that got no answer within `timeoutMs`. */
export class RequestTimeoutError extends Error {
  constructor(readonly method: string, readonly target: string, readonly timeoutMs: number) {
    super(`${method} ${target}: no answer within ${timeoutMs} ms`);
    this.name = 'RequestTimeoutError';
  }
}

/** The caller's signal and this attempt's deadline, whichever fires first. */
function attemptSignal(caller: AbortSignal | null, timeoutMs: number): AbortSignal | undefined {
  const deadline = timeoutMs > 0 ? AbortSignal.timeout(timeoutMs) : undefined;
  if (!deadline) return caller ?? undefined;
  // AbortSignal.any: Node 20.3+, browsers since 2023-24; without it the deadline alone (the caller's abort
  // then ends the wait only through the deadline).
  const any = (AbortSignal as { any?: (signals: AbortSignal[]) => AbortSignal }).any;
  return caller && any ? any([caller, deadline]) : deadline;
}

/** The request target of a URL as an HTTP client sends it: path and query, no origin, no fragment. */
export function requestTarget(url: string): string {
  const u = new URL(url);
  return u.pathname + u.search;
}

export function retryingFetch(options: RetryingFetchOptions): (input: Request) => Promise<Response> {
  return async (input: Request) => {
    const method = input.method.toUpperCase();
    const body = input.body ? await input.text() : '';
    const attemptInfo: Attempt = { method, target: requestTarget(input.url), body };
    const replaySafe = isReplaySafe(method, input.headers, body);
    const random = options.random ?? Math.random;
    const timeoutMs = options.timeoutMs ?? 0;
    for (let attempt = 1; ; attempt++) {
      const headers = new Headers(input.headers);
      await options.prepare(headers, attemptInfo);
      let outcome: AttemptOutcome;
      let response: Response | undefined;
      try {
        response = await options.fetch(input.url, {
          method, headers, body: body === '' ? undefined : body, signal: attemptSignal(input.signal, timeoutMs),
          ...(options.credentials ? { credentials: options.credentials } : {}),
        });
        outcome = { kind: 'response', status: response.status, retryAfter: response.headers.get('retry-after') };
      } catch (err) {
        if (input.signal?.aborted) throw err;
        const timedOut = (err as { name?: string }).name === 'TimeoutError';
        outcome = { kind: 'network_error' };
        const delay = retryDelay(outcome, attempt, replaySafe, options.retry, options.now(), random);
        if (delay === null) throw timedOut ? new RequestTimeoutError(method, attemptInfo.target, timeoutMs) : err;
        await options.sleep(delay);
        continue;
      }
      const delay = retryDelay(outcome, attempt, replaySafe, options.retry, options.now(), random);
      if (delay === null) return response;
      // Read the body so the connection goes back to the pool before waiting.
      await response.arrayBuffer().catch(() => undefined);
      await options.sleep(delay);
    }
  };
}

/**
 * Waits at least `ms` by the wall clock: a timer may fire a millisecond early, and a retry sent before
 * Retry-After has passed would be refused again.
 */
export async function sleepAtLeast(ms: number): Promise<void> {
  const until = Date.now() + ms;
  for (let left = ms; left > 0; left = until - Date.now()) await new Promise((r) => setTimeout(r, left));
}
