/**
 * openapi-fetch reads answers with plain JSON.parse, which rounds an int64 above 2^53. The API-key client
 * asks it for the text instead and parses that with int64.ts, so `*_sun` values arrive exact (a `bigint`
 * when a `number` would round). A call that sets its own `parseAs` is left alone.
 */
import type { Client } from 'openapi-fetch';
import { parseJson } from './int64';

const METHODS = ['GET', 'PUT', 'POST', 'DELETE', 'OPTIONS', 'HEAD', 'PATCH', 'TRACE'] as const;

type Call = (url: string, init?: Record<string, unknown>) => Promise<{ data?: unknown; error?: unknown; response: Response }>;

function lossless(call: Call): Call {
  return async (url, init) => {
    if (init?.parseAs !== undefined) return call(url, init);
    const result = await call(url, { ...init, parseAs: 'text' });
    if (typeof result.data !== 'string') return result;
    const json = /\bjson\b/i.test(result.response.headers.get('content-type') ?? '');
    if (!json) return result;
    return { ...result, data: result.data === '' ? undefined : parseJson(result.data) };
  };
}

export function losslessClient<Paths extends {}>(api: Client<Paths>): Client<Paths> {
  const methods = api as unknown as Record<(typeof METHODS)[number], Call>;
  const wrapped = Object.fromEntries(METHODS.map((m) => [m, lossless(methods[m].bind(api))]));
  return { ...api, ...wrapped } as unknown as Client<Paths>;
}
