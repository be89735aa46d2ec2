/**
 * The browser entry (`@energy-rental/client/browser`): the same generated types, openapi-fetch, error
 * type, Retry-After-aware retry and cursor paging as the API-key client, but for a page signed in with a
 * dashboard session (spec §5): the httpOnly cookie goes by itself (same origin), and every POST, PATCH,
 * DELETE echoes the session's csrf_token in X-CSRF-Token. No API key and no Node module: nothing here
 * imports node:crypto (test/unit/client/browser-entry.test.ts bundles it with esbuild to keep it so).
 */
import createClient, { type Client } from 'openapi-fetch';
import type { paths } from '../generated/schema';
import { stringifyJson } from './int64';
import { losslessClient } from './lossless';
import { paginate, placeOrder, type Order, type OrderRequest, type PagedPath, type PageItem, type PageOptions } from './paging';
import { defaultRetryPolicy, type RetryPolicy } from './retry';
import { DEFAULT_TIMEOUT_MS, retryingFetch, sleepAtLeast } from './retrying-fetch';

export { EnergyApiError, isApiError, type ErrorCode, type ErrorEnvelope, type ErrorSlug } from './errors';
export { dataOf, newClientOrderId, type Answer, type CallResult, type Order, type OrderRequest, type PagedPath, type PageItem, type PageQuery } from './paging';
export { defaultRetryPolicy, type RetryPolicy } from './retry';
export { RequestTimeoutError } from './retrying-fetch';
export { parseJson, stringifyJson, type Int64 } from './int64';
export type { components, operations, paths } from '../generated/schema';

export interface BrowserClientOptions {
  /** The API's origin; default the page's own (the session cookie is same-origin only). */
  baseUrl?: string;
  /** The csrf_token of the current session (POST/GET /v1/session), or null before sign-in. */
  csrfToken: () => string | null;
  retry?: Partial<RetryPolicy>;
  /** Each attempt is abandoned after this long (default 30 s; 0: never). */
  timeoutMs?: number;
  fetch?: typeof fetch;
  /** Injected by tests; the default waits by the wall clock. */
  sleep?: (ms: number) => Promise<void>;
}

export interface BrowserClient {
  /** Every operation of the document, typed by path; `dataOf(api.GET(...))` gives the data or throws. */
  api: Client<paths>;
  /** As the API-key client's: adds a client_order_id so a retried order is the same order. */
  placeOrder(body: OrderRequest): Promise<{ order: Order; created: boolean }>;
  /** Every item of a list, following next_cursor until the last page. */
  paginate<P extends PagedPath>(path: P, params?: PageOptions<P>): AsyncGenerator<PageItem<P>>;
}

const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export function createBrowserClient(options: BrowserClientOptions): BrowserClient {
  const transport = retryingFetch({
    retry: { ...defaultRetryPolicy, ...options.retry },
    // Looked up per call: a page may swap in a fetch after the client exists (tests, polyfills).
    fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
    now: Date.now,
    sleep: options.sleep ?? sleepAtLeast,
    credentials: 'same-origin',
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    prepare(headers, { method }) {
      const csrf = options.csrfToken();
      if (csrf && UNSAFE_METHODS.has(method)) headers.set('x-csrf-token', csrf);
    },
  });
  const baseUrl = options.baseUrl ?? (globalThis as { location?: { origin: string } }).location?.origin ?? '';
  const api = losslessClient(createClient<paths>({ baseUrl, fetch: transport, bodySerializer: stringifyJson }));
  return {
    api,
    placeOrder: (body) => placeOrder(api, body),
    paginate: (path, params) => paginate(api, path, params),
  };
}
