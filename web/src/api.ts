/**
 * Calls to the API from the page: same origin, the session cookie goes by itself (httpOnly, Path=/v1),
 * every POST/PATCH/DELETE carries X-CSRF-Token (contract §5). Errors arrive as the contract's envelope.
 */
export class ApiFailure extends Error {
  constructor(readonly status: number, readonly code: number | null, readonly slug: string, message: string, readonly details: unknown) {
    super(message);
  }
}

let csrf: string | null = null;
let onSignedOut: () => void = () => undefined;

export function setCsrf(token: string | null): void {
  csrf = token;
}

/** Called when the API says the session is gone (1013), so the page shows sign-in again. */
export function whenSignedOut(fn: () => void): void {
  onSignedOut = fn;
}

export async function api<T = any>(method: string, path: string, body?: unknown, opts: { csrf?: boolean } = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && csrf && opts.csrf !== false) headers['x-csrf-token'] = csrf;
  const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'same-origin' });
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  let json: any = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  if (!res.ok) {
    const e = json?.error;
    const failure = new ApiFailure(res.status, e?.code ?? null, e?.slug ?? 'error', e?.message ?? `HTTP ${res.status}`, e?.details ?? null);
    if (failure.code === 1013 && path !== '/v1/session') onSignedOut();
    throw failure;
  }
  return json as T;
}

/** Query string from the set values of an object (arrays repeat the key). */
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
