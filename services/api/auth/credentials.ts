/** What credentials a request carries, read from its headers only. */
import type { Request } from 'express';

export const SESSION_COOKIE = 'session';

export type Presented =
  | { kind: 'api_key'; keyId: string; timestamp: string | undefined; sign: string | undefined }
  | { kind: 'bootstrap'; token: string }
  | { kind: 'session'; token: string }
  | { kind: 'none' };

function header(req: Request, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

export function cookieValue(req: Request, name: string): string | undefined {
  for (const part of (header(req, 'cookie') ?? '').split(';')) {
    const [k, ...rest] = part.trim().split('=');
    if (k === name && rest.length) {
      // A malformed escape (`session=%E0`) is not a session the service issued: keep it as sent, it matches nothing.
      try {
        return decodeURIComponent(rest.join('='));
      } catch {
        return rest.join('=');
      }
    }
  }
  return undefined;
}

/** API key first, then a bearer token, then the session cookie. */
export function presentedCredentials(req: Request): Presented {
  const keyId = header(req, 'x-api-key');
  if (keyId !== undefined) return { kind: 'api_key', keyId, timestamp: header(req, 'x-api-timestamp'), sign: header(req, 'x-api-sign') };
  const bearer = /^Bearer\s+(\S+)$/i.exec(header(req, 'authorization') ?? '');
  if (bearer) return { kind: 'bootstrap', token: bearer[1] };
  const session = cookieValue(req, SESSION_COOKIE);
  if (session) return { kind: 'session', token: session };
  return { kind: 'none' };
}

export function csrfHeader(req: Request): string | undefined {
  return header(req, 'x-csrf-token');
}

/**
 * The caller's address: the socket's peer, or, from a peer in TRUSTED_PROXIES, the rightmost
 * X-Forwarded-For hop that is not a trusted proxy (express's `trust proxy`, set in app.ts).
 */
export function clientIp(req: Request): string | null {
  return req.ip ?? req.socket.remoteAddress ?? null;
}
