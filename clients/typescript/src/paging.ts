/**
 * What both entries share on top of openapi-fetch: the answer or the contract's error as an exception,
 * walking a cursor-paged list, and a client_order_id that makes an order safe to retry. No Node modules:
 * the browser bundle includes this file.
 */
import type { Client } from 'openapi-fetch';
import type { components, paths } from '../generated/schema';
import { EnergyApiError } from './errors';

export type Order = components['schemas']['Order'];
export type OrderRequest = NonNullable<paths['/v1/orders']['post']['requestBody']>['content']['application/json'];

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
export type PageOptions<P extends PagedPath> = { query?: PageQuery<P>; path?: Record<string, string> };

/** What an openapi-fetch call resolves to: the data on 2xx, else the error body. */
export type CallResult<T> = { data?: T; error?: unknown; response: Response };
/** A 204's data is `never` in the generated types; as a value it is undefined. */
export type Answer<T> = [T] extends [never] ? undefined : T;

/** The data of a 2xx answer; any other answer as EnergyApiError (the contract's error envelope). */
export async function dataOf<T>(pending: Promise<CallResult<T>>): Promise<Answer<T>> {
  const { data, error, response } = await pending;
  if (!response.ok) throw new EnergyApiError(response.status, error, response.headers.get('x-request-id'));
  return data as Answer<T>;
}

/** Every item of a list, following next_cursor until the last page. */
export async function* paginate<P extends PagedPath>(api: Client<paths>, path: P, params: PageOptions<P> = {}): AsyncGenerator<PageItem<P>> {
  // openapi-fetch's per-path types cannot follow a path chosen at run time; PagedPath keeps callers typed.
  const get = api.GET as unknown as (p: string, init: unknown) => Promise<CallResult<Page>>;
  let cursor: string | undefined;
  do {
    const query = { ...(params.query as Record<string, unknown> | undefined), ...(cursor ? { cursor } : {}) };
    const page = await dataOf(get(path, { params: { query, path: params.path } }));
    for (const item of page.data) yield item as PageItem<P>;
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
}

/**
 * Places an order that is safe to retry: a client_order_id is added when the body has none, so a retry
 * after a lost answer returns the same order (200) instead of buying twice.
 */
export async function placeOrder(api: Client<paths>, body: OrderRequest): Promise<{ order: Order; created: boolean }> {
  const withId = { ...body, client_order_id: body.client_order_id ?? newClientOrderId() };
  const pending = api.POST('/v1/orders', { body: withId });
  const { response } = await pending;
  return { order: await dataOf(pending), created: response.status === 201 };
}

/**
 * `cli_` and 32 random hex digits. getRandomValues exists in Node 20 and in every browser page, also on
 * plain http origins where crypto.randomUUID does not.
 */
export function newClientOrderId(): string {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(16));
  return `cli_${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}
