/**
 * Calls to the API from the page, through the typed client's browser entry (clients/typescript/src/
 * browser.ts): same origin, the session cookie goes by itself (httpOnly, Path=/v1), every POST/PATCH/
 * DELETE carries X-CSRF-Token (contract §5), 429/503 are retried as Retry-After says. Pages call
 * `ok(http.GET('/v1/orders', { params: { query } }))`: typed by path, the data or an EnergyApiError.
 */
import { createBrowserClient, dataOf, EnergyApiError, type Answer, type CallResult } from '../../clients/typescript/src/browser';

export { EnergyApiError } from '../../clients/typescript/src/browser';
export type { components, OrderRequest, paths } from '../../clients/typescript/src/browser';
/** Enums of the document the pages read from form fields. */
export type Schemas = import('../../clients/typescript/src/browser').components['schemas'];

let csrf: string | null = null;
let onSignedOut: () => void = () => undefined;

export function setCsrf(token: string | null): void {
  csrf = token;
}

/** Called when the API says the session is gone (1013), so the page shows sign-in again. */
export function whenSignedOut(fn: () => void): void {
  onSignedOut = fn;
}

// A person is waiting: a Retry-After beyond 10 s shows the 429 instead of a page that seems to hang.
export const client = createBrowserClient({ csrfToken: () => csrf, retry: { maxRetryAfterMs: 10_000 } });
/** Every operation of /v1/openapi.json, typed by path. */
export const http = client.api;

/** The data of a call, or its error envelope thrown as EnergyApiError; a lost session signs the page out. */
export async function ok<T>(pending: Promise<CallResult<T>>): Promise<Answer<T>> {
  try {
    return await dataOf(pending);
  } catch (err) {
    if (err instanceof EnergyApiError && err.code === 1013 && !(await pending).response.url.endsWith('/v1/session')) onSignedOut();
    throw err;
  }
}

/** Query string from the set values of an object (arrays repeat the key), for the CSV download links. */
export function query(params: Record<string, string | string[] | number | undefined | null>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined || v === null || v === '') continue;
    if (Array.isArray(v)) v.forEach((x) => q.append(k, x));
    else q.set(k, String(v));
  }
  const s = q.toString();
  return s ? `?${s}` : '';
}
