/** Signup: address challenge, verification into a bootstrap token, account creation, first deposit-address read. */
import { Router } from 'express';
import { randomId } from '../../domain/ids';
import type { ChallengePurpose } from '../../identity/challenge-message';
import { cleanTitle } from '../../identity/text-rules';
import { newToken, tokenHash } from '../../identity/request-signing';
import { toIso } from '../../platform/clock';
import { ensureAccount, withDepositAddress } from '../account-provisioning';
import { BOOTSTRAP_TTL_MS, verifyBootstrap } from '../auth/bootstrap-auth';
import { MINUTE_MS, proofBudget, spendBudget } from '../auth/budget';
import { accountPurposes, proveAddress } from '../auth/challenge-proof';
import { clientIp, presentedCredentials } from '../auth/credentials';
import { accountIdOf, requireAuth } from '../auth/require-auth';
import { ApiError, sendJson } from '../errors';
import { checkAddress, type IdentityDeps } from '../identity-deps';
import { accountIdFor, loadAccount } from '../stores/accounts';
import { saveBootstrapToken } from '../stores/bootstrap-tokens';
import { challengeBudget, issueChallenge } from '../auth/issue-challenge';
import { depositRows } from '../views/account-view';

const MINUTE = MINUTE_MS;

export function signupRouter(deps: IdentityDeps): Router {
  const { rt, validator } = deps;
  const router = Router();

  router.post('/v1/accounts/challenge', validator.for('createChallenge'), challengeBudget(rt), async (req, res) => {
    const address = checkAddress(req.body.address, 'address');
    const purpose: ChallengePurpose = req.body.purpose ?? 'signup';
    // Nothing here looks at accounts: the answer is the same for an address with or without one.
    sendJson(res, 201, await issueChallenge(rt, address, purpose));
  });

  router.post('/v1/accounts/challenge/verify', validator.for('verifyChallenge'), proofBudget(rt), async (req, res) => {
    const address = checkAddress(req.body.address, 'address');
    await proveAddress(rt, clientIp(req), address, req.body.nonce, req.body.signature, accountPurposes);
    const now = rt.clock.now();
    const token = newToken('abt_');
    const expiresAt = now + BOOTSTRAP_TTL_MS;
    await saveBootstrapToken(rt.pool, tokenHash(token), { id: randomId('bootstrapToken'), address, expiresAt }, now);
    const account = await loadAccount(rt.pool, accountIdFor(rt.cfg.BRAND, rt.cfg.NETWORK, address));
    sendJson(res, 200, { bootstrap_token: token, expires_at: toIso(expiresAt), account_id: account?.id ?? null, account_status: account?.status ?? null });
  });

  router.post('/v1/accounts', validator.for('createAccount'), async (req, res) => {
    const address = checkAddress(req.body.address, 'address');
    let label: string | null = null;
    if (typeof req.body.label === 'string') {
      const check = cleanTitle(req.body.label, 64);
      if (!check.ok) throw new ApiError('invalid_request', `\`label\` ${check.reason}.`, { field: 'label' });
      label = check.value;
    }
    const presented = presentedCredentials(req);
    if (presented.kind === 'bootstrap') {
      const auth = await verifyBootstrap(rt, presented.token, true);
      if (auth.address !== address) throw new ApiError('bootstrap_token_invalid', 'The bootstrap token was issued to another address.');
    } else if (typeof req.body.nonce === 'string' && typeof req.body.signature === 'string') {
      await spendBudget(rt, 'proofs', clientIp(req) ?? 'unknown', rt.cfg.BUDGET_PROOFS_PER_IP_PER_MIN, MINUTE);
      await proveAddress(rt, clientIp(req), address, req.body.nonce, req.body.signature, accountPurposes);
    } else {
      throw new ApiError('authentication_required', 'Send a bootstrap token, or `nonce` and `signature` of a challenge.');
    }
    const { account, created } = await ensureAccount(deps, address, { email: req.body.email ?? null, displayName: label });
    const deposits = await depositRows(rt.cfg, account, deps.rate);
    sendJson(res, created ? 201 : 200, {
      account_id: account.id,
      brand: account.brand,
      network: account.network,
      status: account.status,
      owner_address: account.ownerAddress ?? address,
      deposit_addresses: deposits,
      ...(account.status === 'unfunded' && account.depositAddress
        ? { next: { action: 'deposit', address: account.depositAddress, reason: 'The account is unfunded: deposit TRX or USDT to this address to activate it.' } }
        : {}),
      created_at: toIso(account.createdAt),
    });
  });

  router.get('/v1/accounts/deposit-address', requireAuth({ bootstrap: true }), validator.for('getBootstrapDepositAddress'), async (req, res) => {
    const found = await loadAccount(rt.pool, accountIdOf(res));
    if (!found) throw new ApiError('not_found');
    const account = await withDepositAddress(deps, found);
    const currency = res.locals.query.currency as 'TRX' | 'USDT' | undefined;
    sendJson(res, 200, {
      account_id: account.id, status: account.status, data: await depositRows(rt.cfg, account, deps.rate, currency), min_deposit_sun: rt.cfg.MIN_DEPOSIT_SUN,
    });
  });

  return router;
}
