/** API keys (contract.md section 2): issue (secret shown once), list, revoke. */
import { Router } from 'express';
import { randomId } from '../../domain/ids';
import { newToken } from '../../identity/request-signing';
import { sealSecret } from '../../platform/secret-box';
import { toIso } from '../../platform/clock';
import { allScopes, type ApiKeyScope } from '../auth/context';
import { accountIdOf, requireAuth } from '../auth/require-auth';
import { ApiError, sendJson } from '../errors';
import type { IdentityDeps } from '../identity-deps';
import { apiKeyContext, insertApiKey, listApiKeys, revokeApiKey, type ApiKeyRow } from '../stores/api-keys';
import { loadAccount } from '../stores/accounts';

export const MAX_ACTIVE_KEYS = 10;

const keyJson = (k: ApiKeyRow) => ({
  id: k.id, name: k.name, scopes: k.scopes, created_at: toIso(k.createdAt), last_used_at: k.lastUsedAt === null ? null : toIso(k.lastUsedAt),
});

export function apiKeysRouter(deps: IdentityDeps): Router {
  const { rt, validator } = deps;
  const router = Router();

  router.post('/v1/api-keys', requireAuth({ bootstrap: true, session: { minRole: 'owner' } }), validator.for('createApiKey'), async (req, res) => {
    const accountId = accountIdOf(res);
    if (!(await loadAccount(rt.pool, accountId))) throw new ApiError('not_found');
    const secret = newToken('sk_', 32);
    const id = randomId('apiKey');
    const row: ApiKeyRow = {
      id, accountId, name: req.body?.name ?? null,
      scopes: (req.body?.scopes as ApiKeyScope[] | undefined) ?? [...allScopes],
      secretEnc: sealSecret(rt.cfg.API_KEY_ENCRYPTION_KEY, secret, apiKeyContext(id)), createdAt: rt.clock.now(), lastUsedAt: null, revokedAt: null,
    };
    if (!(await insertApiKey(rt.pool, row, MAX_ACTIVE_KEYS))) throw new ApiError('api_key_limit_reached', undefined, { limit: MAX_ACTIVE_KEYS });
    sendJson(res, 201, { ...keyJson(row), secret });
  });

  router.get('/v1/api-keys', requireAuth({ session: { minRole: 'viewer' } }), validator.for('listApiKeys'), async (_req, res) => {
    sendJson(res, 200, { data: (await listApiKeys(rt.pool, accountIdOf(res))).map(keyJson) });
  });

  router.delete('/v1/api-keys/:keyId', requireAuth({ session: { minRole: 'owner' } }), validator.for('revokeApiKey'), async (req, res) => {
    if (!(await revokeApiKey(rt.pool, accountIdOf(res), String(req.params.keyId), rt.clock.now()))) throw new ApiError('not_found');
    res.status(204).end();
  });

  return router;
}
