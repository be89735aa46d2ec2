/**
 * The fetch the generated client sends through: signs every attempt afresh (a write signature is
 * accepted once), adds the bearer token, and retries as retry.ts decides, waiting what Retry-After asks.
 */
import { signedHeaders, requestTarget, Stamper, type ApiKey, type TimestampUnit } from './signing';
import { isReplaySafe, retryDelay, type AttemptOutcome, type RetryPolicy } from './retry';

export interface TransportOptions {
  apiKey?: ApiKey;
  /** Bootstrap token (abt_...) for the signup calls: POST /v1/accounts, POST /v1/api-keys. */
  bearerToken?: string;
  timestampUnit: TimestampUnit;
  retry: RetryPolicy;
  fetch: typeof fetch;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
}

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export function signingTransport(options: TransportOptions): (input: Request) => Promise<Response> {
  const stamper = new Stamper(options.timestampUnit, options.now);
  return async (input: Request) => {
    const method = input.method.toUpperCase();
    const body = input.body ? await input.text() : '';
    const target = requestTarget(input.url);
    const replaySafe = isReplaySafe(method, input.headers, body);
    for (let attempt = 1; ; attempt++) {
      const headers = new Headers(input.headers);
      if (options.bearerToken) headers.set('authorization', `Bearer ${options.bearerToken}`);
      if (options.apiKey) {
        const { timestamp, waitMs } = stamper.next(WRITE_METHODS.has(method));
        if (waitMs > 0) await options.sleep(waitMs);
        for (const [name, value] of Object.entries(signedHeaders(options.apiKey, timestamp, method, target, body))) headers.set(name, value);
      }
      let outcome: AttemptOutcome;
      let response: Response | undefined;
      try {
        response = await options.fetch(input.url, { method, headers, body: body === '' ? undefined : body, signal: input.signal });
        outcome = { kind: 'response', status: response.status, retryAfter: response.headers.get('retry-after') };
      } catch (err) {
        if (input.signal?.aborted) throw err;
        outcome = { kind: 'network_error' };
        const delay = retryDelay(outcome, attempt, replaySafe, options.retry, options.now());
        if (delay === null) throw err;
        await options.sleep(delay);
        continue;
      }
      const delay = retryDelay(outcome, attempt, replaySafe, options.retry, options.now());
      if (delay === null) return response;
      // Read the body so the connection goes back to the pool before waiting.
      await response.arrayBuffer().catch(() => undefined);
      await options.sleep(delay);
    }
  };
}
