/**
 * The typed client: openapi-fetch over the types generated from /v1/openapi.json, sent through the
 * signing, retrying transport, plus the two things bots do all the time: place an order safely and walk
 * a list page by page.
 */
import { randomUUID } from 'node:crypto';
import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from '../generated/schema';
import { EnergyApiError } from './errors';
import { defaultRetryPolicy, type RetryPolicy } from './retry';
import type { ApiKey, TimestampUnit } from './signing';
import { signingTransport } from './transport';

export type Order = components['schemas']['Order'];
export type OrderRequest = NonNullable<paths['/v1/orders']['post']['requestBody']>['content']['application/json'];

export interface EnergyClientOptions {
  /** Origin of the API, e.g. http://127.0.0.1:3000 (the paths carry /v1). */
  baseUrl: string;
  apiKey?: ApiKey;
  bearerToken?: string;
  /** Default milliseconds: then the same write may be sent more than once a second. */
  timestampUnit?: TimestampUnit;
  retry?: Partial<RetryPolicy>;
  fetch?: typeof fetch;
}

type GetOperation<P extends keyof paths> = paths[P] extends { get: infer O } ? O : never;
type JsonOk<O> = O extends { responses: { 200: { content: { 'application/json': infer B } } } } ? B : never;
type Page = { data: unknown[]; next_cursor?: string | null };

/** Paths whose GET answers `{data, next_cursor}` and takes a `cursor` query parameter. */
export type PagedPath = {
  [P in keyof paths]: JsonOk<GetOperation<P>> extends Page
    ? GetOperation<P> extends { parameters: { query?: { cursor?: string } } } ? P : never
    : never;
}[keyof paths];
export type PageItem<P extends PagedPath> = JsonOk<GetOperation<P>> extends { data: Array<infer T> } ? T : never;
type PageParams<P extends PagedPath> = GetOperation<P> extends { parameters: infer Params } ? Params : never;
export type PageQuery<P extends PagedPath> = Omit<NonNullable<PageParams<P> extends { query?: infer Q } ? Q : never>, 'cursor'>;

export interface EnergyClient {
  /** Every operation of the document, typed: api.GET('/v1/account'), api.POST('/v1/quotes', { body }). */
  api: Client<paths>;
  /**
   * Places an order that is safe to retry: a client_order_id is added when the body has none, so a retry
   * after a lost answer returns the same order (200) instead of buying twice.
   */
  placeOrder(body: OrderRequest): Promise<{ order: Order; created: boolean }>;
  /** Every item of a list, following next_cursor until the last page. */
  paginate<P extends PagedPath>(path: P, params?: { query?: PageQuery<P>; path?: Record<string, string> }): AsyncGenerator<PageItem<P>>;
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
  });
  const api = createClient<paths>({ baseUrl: options.baseUrl, fetch: transport });

  return {
    api,
    async placeOrder(body) {
      const withId = { ...body, client_order_id: body.client_order_id ?? `cli_${randomUUID()}` };
      const { data, error, response } = await api.POST('/v1/orders', { body: withId });
      if (error !== undefined || data === undefined) throw new EnergyApiError(response.status, error, response.headers.get('x-request-id'));
      return { order: data, created: response.status === 201 };
    },
    async *paginate(path, params = {}) {
      // openapi-fetch's per-path types cannot follow a path chosen at run time; PagedPath keeps callers typed.
      const get = api.GET as unknown as (p: string, init: unknown) => Promise<{ data?: Page; error?: unknown; response: Response }>;
      let cursor: string | undefined;
      do {
        const query = { ...(params.query as Record<string, unknown> | undefined), ...(cursor ? { cursor } : {}) };
        const { data, error, response } = await get(path, { params: { query, path: params.path } });
        if (error !== undefined || data === undefined) throw new EnergyApiError(response.status, error, response.headers.get('x-request-id'));
        for (const item of data.data) yield item as never;
        cursor = data.next_cursor ?? undefined;
      } while (cursor);
    },
  };
}

/**
 * Waits at least `ms` by the wall clock: a timer may fire a millisecond early, and a retry sent before
 * Retry-After has passed would be refused again.
 */
async function sleepAtLeast(ms: number): Promise<void> {
  const until = Date.now() + ms;
  for (let left = ms; left > 0; left = until - Date.now()) await new Promise((r) => setTimeout(r, left));
}
