/** Dashboard sessions: sign in with a signed challenge, restore, refresh, sign out, revoke all, history. */
import { randomBytes } from 'node:crypto';
import { Router, type Request, type Response } from 'express';
import type { Account } from '../../domain/account';
import { randomId } from '../../domain/ids';
import { newToken, tokenHash } from '../../identity/request-signing';
import { toIso } from '../../platform/clock';
import { ensureAccount } from '../account-provisioning';
import { takeWalletTicket } from '../auth/wallet-ticket';
import { accountPurposes, proveAddress } from '../auth/challenge-proof';
import { proofBudget } from '../auth/budget';
import { clientIp } from '../auth/credentials';
import type { MemberRole } from '../auth/context';
import { authOf, requireAuth } from '../auth/require-auth';
import { clearSessionCookie, SESSION_TTL_S, setSessionCookie, type LiveSession } from '../auth/session-auth';
import { ApiError, sendJson } from '../errors';
import { checkAddress, type IdentityDeps } from '../identity-deps';
import { accountIdFor, loadAccount } from '../stores/accounts';
import { membershipsOf } from '../stores/members';
import { audit, extendSession, insertSession, revokeSession, revokeSessionsOf, roleOf, signInHistory, type SessionRow } from '../stores/sessions';

function sessionJson(account: Account, s: SessionRow, role: MemberRole) {
  return {
    account_id: account.id, account_status: account.status, display_name: account.displayName, owner_address: account.ownerAddress,
    address: s.address, role, network: account.network, csrf_token: s.csrfToken, expires_at: toIso(s.expiresAt),
    created_at: toIso(s.createdAt), ttl_seconds: SESSION_TTL_S,
  };
}

export function sessionRouter(deps: IdentityDeps): Router {
  const { rt, validator } = deps;
  const router = Router();
  const viewer = requireAuth({ session: { minRole: 'viewer' } });
  const live = (res: Response) => res.locals.session as LiveSession;

  /** The account a signer enters: the one named (if it may), else its own, else its only membership, else a new one of its own. */
  async function accountFor(address: string, named: string | undefined): Promise<{ account: Account; role: MemberRole }> {
    if (named !== undefined) {
      const role = await roleOf(rt.pool, named, address);
      const account = role ? await loadAccount(rt.pool, named) : undefined;
      if (!role || !account) throw new ApiError('challenge_invalid');
      return { account, role };
    }
    const own = await loadAccount(rt.pool, accountIdFor(rt.cfg.BRAND, rt.cfg.NETWORK, address));
    if (own) return { account: own, role: 'owner' };
    const memberships = await membershipsOf(rt.pool, address);
    if (memberships.length === 1) {
      const account = await loadAccount(rt.pool, memberships[0]);
      const role = await roleOf(rt.pool, memberships[0], address);
      if (account && role) return { account, role };
    }
    const { account } = await ensureAccount(deps, address, { email: null, displayName: null });
    return { account, role: 'owner' };
  }

  router.post('/v1/session', validator.for('createSession'), proofBudget(rt), async (req, res) => {
    const address = checkAddress(req.body.address, 'address');
    await proveAddress(rt, clientIp(req), address, req.body.nonce, req.body.signature, accountPurposes);
    await openSession(req, res, address, req.body.account_id);
  });

  // A promo claimer's wallet ticket (PromoRedeemResult): the signature already checked, taken once.
  router.post('/v1/session/wallet-ticket', validator.for('exchangeWalletTicket'), proofBudget(rt), async (req, res) => {
    const address = await takeWalletTicket(rt, req.body.token);
    if (!address) throw new ApiError('challenge_invalid', 'Unknown, expired or used wallet ticket.');
    await openSession(req, res, address, undefined);
  });

  async function openSession(req: Request, res: Response, address: string, named: string | undefined): Promise<void> {
    const { account, role } = await accountFor(address, named);
    const now = rt.clock.now();
    const token = newToken('', 32);
    const row: SessionRow = {
      id: randomId('session'), csrfToken: randomBytes(24).toString('base64url'), accountId: account.id, address,
      createdAt: now, expiresAt: now + SESSION_TTL_S * 1000,
    };
    await insertSession(rt.pool, tokenHash(token), row, clientIp(req));
    setSessionCookie(res, token);
    sendJson(res, 201, sessionJson(account, row, role));
  }

  router.get('/v1/session', viewer, validator.for('getSession'), async (_req, res) => {
    const s = live(res);
    const account = await loadAccount(rt.pool, s.row.accountId);
    if (!account) throw new ApiError('session_expired');
    sendJson(res, 200, sessionJson(account, s.row, s.role));
  });

  router.delete('/v1/session', viewer, validator.for('deleteSession'), async (_req, res) => {
    await revokeSession(rt.pool, live(res).row.id, rt.clock.now());
    clearSessionCookie(res);
    res.status(204).end();
  });

  router.post('/v1/session/refresh', viewer, validator.for('refreshSession'), async (_req, res) => {
    const s = live(res);
    s.row.expiresAt = rt.clock.now() + SESSION_TTL_S * 1000;
    await extendSession(rt.pool, s.row.id, s.row.expiresAt);
    setSessionCookie(res, s.token);
    const account = await loadAccount(rt.pool, s.row.accountId);
    if (!account) throw new ApiError('session_expired');
    sendJson(res, 200, sessionJson(account, s.row, s.role));
  });

  router.post('/v1/session/revoke-all', viewer, validator.for('revokeAllSessions'), async (_req, res) => {
    const auth = authOf(res);
    if (auth.kind !== 'session') throw new ApiError('session_expired');
    const now = rt.clock.now();
    const revoked = await revokeSessionsOf(rt.pool, auth.accountId, auth.address, now);
    await audit(rt.pool, auth.accountId, auth.address, 'session.revoke_all', { revoked, session_id: auth.sessionId }, now);
    clearSessionCookie(res);
    res.status(204).end();
  });

  router.get('/v1/session/history', viewer, validator.for('sessionHistory'), async (_req, res) => {
    const { row } = live(res);
    sendJson(res, 200, { data: await signInHistory(rt.pool, row.accountId, row.address) });
  });

  return router;
}
