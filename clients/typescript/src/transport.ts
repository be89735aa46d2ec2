/**
 * The fetch the API-key client sends through: signs every attempt afresh (a write signature is
 * accepted once), adds the bearer token, and retries as retrying-fetch.ts does.
 */
import { signedHeaders, Stamper, type ApiKey, type TimestampUnit } from './signing';
import { retryingFetch } from './retrying-fetch';
import type { RetryPolicy } from './retry';

export interface TransportOptions {
  apiKey?: ApiKey;
  /** Bootstrap token (abt_...) for the signup calls: POST /v1/accounts, POST /v1/api-keys. */
  bearerToken?: string;
  timestampUnit: TimestampUnit;
  retry: RetryPolicy;
  fetch: typeof fetch;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  timeoutMs?: number;
  random?: () => number;
}

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export function signingTransport(options: TransportOptions): (input: Request) => Promise<Response> {
  const stamper = new Stamper(options.timestampUnit, options.now);
  return retryingFetch({
    ...options,
    async prepare(headers, { method, target, body }) {
      if (options.bearerToken) headers.set('authorization', `Bearer ${options.bearerToken}`);
      if (!options.apiKey) return;
      const { timestamp, waitMs } = stamper.next(WRITE_METHODS.has(method));
      if (waitMs > 0) await options.sleep(waitMs);
      for (const [name, value] of Object.entries(signedHeaders(options.apiKey, timestamp, method, target, body))) headers.set(name, value);
    },
  });
}
