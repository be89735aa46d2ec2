/**
 * The typed client: openapi-fetch over the types generated from /v1/openapi.json, sent through the
 * signing, retrying transport, plus the two things bots do all the time: place an order safely and walk
 * a list page by page. The dashboard's twin (session cookie + CSRF) is browser.ts.
 */
import createClient, { type Client } from 'openapi-fetch';
import type { paths } from '../generated/schema';
import { stringifyJson } from './int64';
import { losslessClient } from './lossless';
import { paginate, placeOrder, type Order, type OrderRequest, type PagedPath, type PageItem, type PageOptions } from './paging';
import { defaultRetryPolicy, type RetryPolicy } from './retry';
import { DEFAULT_TIMEOUT_MS, sleepAtLeast } from './retrying-fetch';

export { DEFAULT_TIMEOUT_MS };
import type { ApiKey, TimestampUnit } from './signing';
import { signingTransport } from './transport';
import { CLIENT_VERSION } from './version';

export type { Order, OrderRequest, PagedPath, PageItem, PageQuery } from './paging';

export interface EnergyClientOptions {
  /** Origin of the API, e.g. http://127.0.0.1:3000 (the paths carry /v1). */
  baseUrl: string;
  apiKey?: ApiKey;
  bearerToken?: string;
  /** Default milliseconds: then the same write may be sent more than once a second. */
  timestampUnit?: TimestampUnit;
  retry?: Partial<RetryPolicy>;
  /** Each attempt is abandoned after this long (default 30 s; 0: never): RequestTimeoutError when out of attempts. */
  timeoutMs?: number;
  /** Prepended to this client's own User-Agent, e.g. `my-bot/1.4`. */
  userAgent?: string;
  fetch?: typeof fetch;
}

/** `energy-rental-client/<version> node/<version>`, after the caller's own product when given. */
export function userAgent(prefix?: string): string {
  const runtime = typeof process === 'object' && process.versions?.node ? ` node/${process.versions.node}` : '';
  return `${prefix ? `${prefix} ` : ''}energy-rental-client/${CLIENT_VERSION}${runtime}`;
}

export interface EnergyClient {
  /** Every operation of the document, typed: api.GET('/v1/account'), api.POST('/v1/quotes', { body }). */
  api: Client<paths>;
  /**
   * Places an order that is safe to retry: a client_order_id is added when the body has none, so a retry
   * after a lost answer returns the same order (200) instead of buying twice.
   */
  placeOrder(body: OrderRequest): Promise<{ order: Order; created: boolean }>;
  /** Every item of a list, following next_cursor until the last page. */
  paginate<P extends PagedPath>(path: P, params?: PageOptions<P>): AsyncGenerator<PageItem<P>>;
}

export function createEnergyClient(options: EnergyClientOptions): EnergyClient {
  const transport = signingTransport({
    apiKey: options.apiKey,
    bearerToken: options.bearerToken,
    timestampUnit: options.timestampUnit ?? 'milliseconds',
    retry: { ...defaultRetryPolicy, ...options.retry },
    fetch: options.fetch ?? globalThis.fetch,
    now: Date.now,
    sleep: sleepAtLeast,
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
  });
  const api = losslessClient(createClient<paths>({
    baseUrl: options.baseUrl, fetch: transport, bodySerializer: stringifyJson, headers: { 'user-agent': userAgent(options.userAgent) },
  }));
  return {
    api,
    placeOrder: (body) => placeOrder(api, body),
    paginate: (path, params) => paginate(api, path, params),
  };
}
