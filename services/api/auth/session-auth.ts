/**
 * Dashboard sessions: httpOnly cookie, X-CSRF-Token on every POST, PATCH and DELETE, 7-day lifetime
 * sliding forward with use; the role is read afresh on every request.
 */
import type { Request, Response } from 'express';
import { tokenHash, signatureMatches } from '../../identity/request-signing';
import type { Runtime } from '../../chain/clients';
import { ApiError } from '../errors';
import { extendSession, findLiveSession, roleOf, type SessionRow } from '../stores/sessions';
import { csrfHeader, SESSION_COOKIE } from './credentials';
import type { AuthContext, MemberRole } from './context';

export const SESSION_TTL_S = 7 * 24 * 3600;
/** Renew at most once a minute per session. */
const RENEW_EVERY_MS = 60_000;

export function setSessionCookie(res: Response, token: string, ttlSeconds = SESSION_TTL_S): void {
  res.append('Set-Cookie', `${SESSION_COOKIE}=${encodeURIComponent(token)}; Max-Age=${ttlSeconds}; Path=/v1; HttpOnly; Secure; SameSite=Lax`);
}

export function clearSessionCookie(res: Response): void {
  setSessionCookie(res, '', 0);
}

export interface LiveSession {
  row: SessionRow;
  token: string;
  role: MemberRole;
}

/** The live session of a cookie token, renewed; 1013 when there is none. */
export async function loadSession(rt: Runtime, token: string, res: Response): Promise<LiveSession> {
  const now = rt.clock.now();
  const row = await findLiveSession(rt.pool, tokenHash(token), now);
  if (!row) throw new ApiError('session_expired');
  const role = await roleOf(rt.pool, row.accountId, row.address);
  if (!role) throw new ApiError('session_expired');
  const renewed = now + SESSION_TTL_S * 1000;
  if (renewed - row.expiresAt >= RENEW_EVERY_MS) {
    await extendSession(rt.pool, row.id, renewed);
    row.expiresAt = renewed;
    setSessionCookie(res, token);
  }
  return { row, token, role };
}

const unsafe = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);

export function checkCsrf(req: Request, session: SessionRow): void {
  if (!unsafe.has(req.method)) return;
  const sent = csrfHeader(req);
  if (!sent || !signatureMatches(session.csrfToken, sent)) throw new ApiError('csrf_token_invalid');
}

export function sessionContext(s: LiveSession): Extract<AuthContext, { kind: 'session' }> {
  return { kind: 'session', accountId: s.row.accountId, sessionId: s.row.id, address: s.row.address, role: s.role };
}
