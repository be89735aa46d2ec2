/** GET /v1/account, PATCH /v1/account (owner's display name), GET /v1/deposit-addresses. */
import { Router } from 'express';
import { cleanTitle } from '../../identity/text-rules';
import { withDepositAddress } from '../account-provisioning';
import { accountIdOf, requireAuth } from '../auth/require-auth';
import { ApiError, sendJson } from '../errors';
import { submitCommand, type IdentityDeps } from '../identity-deps';
import { loadAccount } from '../stores/accounts';
import { accountJson, depositRows, retiredRows, rotationPolicy } from '../views/account-view';

export function accountRouter(deps: IdentityDeps): Router {
  const { rt, validator } = deps;
  const router = Router();

  const ownAccount = async (accountId: string) => {
    const account = await loadAccount(rt.pool, accountId);
    if (!account) throw new ApiError('not_found');
    return account;
  };

  router.get('/v1/account', requireAuth({ apiKey: { scope: 'account.read' }, bootstrap: true, session: { minRole: 'viewer' } }), validator.for('getAccount'), async (_req, res) => {
    sendJson(res, 200, await accountJson(rt.cfg, await ownAccount(accountIdOf(res)), deps.rate));
  });

  router.patch('/v1/account', requireAuth({ session: { minRole: 'owner' } }), validator.for('patchAccount'), async (req, res) => {
    const accountId = accountIdOf(res);
    let displayName: string | null = null;
    if (req.body.display_name !== null) {
      const check = cleanTitle(req.body.display_name, 64);
      if (!check.ok) throw new ApiError('invalid_request', `\`display_name\` ${check.reason}.`, { field: 'display_name' });
      displayName = check.value;
    }
    await submitCommand(deps.bus, { type: 'account.rename', accountId, displayName });
    sendJson(res, 200, await accountJson(rt.cfg, await ownAccount(accountId), deps.rate));
  });

  router.get('/v1/deposit-addresses', requireAuth({ apiKey: { scope: 'account.read' }, session: { minRole: 'viewer' } }), validator.for('listDepositAddresses'), async (_req, res) => {
    const account = await withDepositAddress(deps, await ownAccount(accountIdOf(res)));
    sendJson(res, 200, { data: await depositRows(rt.cfg, account, deps.rate), retired: retiredRows(account), rotation: rotationPolicy });
  });

  return router;
}
