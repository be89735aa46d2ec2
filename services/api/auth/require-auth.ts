/**
 * `requireAuth(requirement)`: the one authentication middleware. It leaves the caller in
 * `res.locals.auth` (read it with `authOf(res)`) or answers with the contract's codes:
 * 1001 no credentials, 1002 bad signed request, 1011/1012 bootstrap token, 1013 session, 1014 CSRF,
 * 1015 key scope, 1016 session role, 1020 budget (every caller: API key, bootstrap token, session). The app puts the Runtime in `app.locals.rt`.
 */
import type { Request, RequestHandler, Response } from 'express';
import type { Runtime } from '../../chain/clients';
import { ApiError } from '../errors';
import { verifySignedRequest } from './api-key-auth';
import { verifyBootstrap } from './bootstrap-auth';
import { callerBudgetSlot, checkBudget, spendAccountBudget, spendCallerBudget } from './budget';
import { countingMisses, refuseAfterMisses } from './credential-misses';
import { apiKeyCache } from './key-cache';
import type { AuthContext, AuthRequirement, MemberRole } from './context';
import { presentedCredentials } from './credentials';
import { checkCsrf, loadSession, sessionContext, type LiveSession } from './session-auth';

const roleRank: Record<MemberRole, number> = { viewer: 0, editor: 1, owner: 2 };

export function runtimeOf(req: Request): Runtime {
  return req.app.locals.rt as Runtime;
}

async function authenticate(req: Request, res: Response, need: AuthRequirement): Promise<AuthContext> {
  const rt = runtimeOf(req);
  const presented = presentedCredentials(req);
  const budgetMethod = need.readBudget ? 'GET' : req.method;
  switch (presented.kind) {
    case 'api_key': {
      // A caller that will pass the scope check below spends its budget in the signature's Redis call.
      const scope = need.apiKey?.scope;
      // A key the cache holds costs no read: only other key ids pass the IP's miss gate (credential-misses.ts).
      if (!apiKeyCache(rt).holds(presented.keyId)) await refuseAfterMisses(rt, req);
      const { auth, budget } = await countingMisses(rt, req, () => verifySignedRequest(rt, req, presented, (key) =>
        (need.apiKey && (!scope || key.scopes.includes(scope)) ? callerBudgetSlot(rt, budgetMethod, key.id) : null)));
      if (!need.apiKey) throw new ApiError('scope_missing', 'No API-key scope opens this endpoint; it needs a dashboard session.', { scope: null });
      if (scope && !auth.scopes.includes(scope)) throw new ApiError('scope_missing', `The API key lacks the scope \`${scope}\`.`, { scope });
      if (budget?.used != null) checkBudget(budget.slot, budget.used);
      else await spendCallerBudget(rt, budgetMethod, auth.keyId);
      return auth;
    }
    case 'bootstrap': {
      await refuseAfterMisses(rt, req);
      const auth = await countingMisses(rt, req, () => verifyBootstrap(rt, presented.token, need.bootstrap === true));
      await spendCallerBudget(rt, budgetMethod, auth.tokenId);
      return auth;
    }
    case 'session': {
      if (!need.session) throw new ApiError('authentication_required', 'This endpoint takes an API key, not a dashboard session.');
      await refuseAfterMisses(rt, req);
      const session: LiveSession = await countingMisses(rt, req, () => loadSession(rt, presented.token, res));
      checkCsrf(req, session.row);
      if (roleRank[session.role] < roleRank[need.session.minRole]) {
        throw new ApiError('role_forbidden', `This needs the role \`${need.session.minRole}\` or above.`, { role: need.session.minRole });
      }
      res.locals.session = session;
      await spendCallerBudget(rt, budgetMethod, session.row.id);
      return sessionContext(session);
    }
    case 'none':
      if (need.session && !need.apiKey && !need.bootstrap) throw new ApiError('session_expired');
      throw new ApiError('authentication_required');
  }
}

export function requireAuth(need: AuthRequirement): RequestHandler {
  return async (req, res, next) => {
    const auth = await authenticate(req, res, need);
    res.locals.auth = auth;
    if (auth.accountId !== null) await spendAccountBudget(runtimeOf(req), need.readBudget ? 'GET' : req.method, auth.accountId);
    next();
  };
}

export function authOf(res: Response): AuthContext {
  const auth = res.locals.auth as AuthContext | undefined;
  if (!auth) throw new Error('authOf called on a route without requireAuth');
  return auth;
}

/** The caller's account; a bootstrap token whose address owns no account yet answers 404. */
export function accountIdOf(res: Response): string {
  const auth = authOf(res);
  if (auth.accountId === null) throw new ApiError('not_found', 'This address has no account yet; create it with POST /v1/accounts.');
  return auth.accountId;
}
