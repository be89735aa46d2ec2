/**
 * API keys (contract.md section 2): issue (secret shown once), list, revoke. Issue and revoke are
 * commands on the log applied by the processor (so `ops restore` brings keys back); the answer waits for
 * the processor's committed result like an order does, so a key listed or used right after the 201 exists.
 */
import { Router } from 'express';
import { randomId } from '../../domain/ids';
import { newToken } from '../../identity/request-signing';
import { sealSecret } from '../../platform/secret-box';
import { toIso } from '../../platform/clock';
import { allScopes, type ApiKeyScope } from '../auth/context';
import { accountIdOf, requireAuth } from '../auth/require-auth';
import { ApiError, sendJson } from '../errors';
import { submitCommand, type IdentityDeps } from '../identity-deps';
import { apiKeyContext, findApiKey, listApiKeys, type ApiKeyRow } from '../stores/api-keys';
import { loadAccount } from '../stores/accounts';

export const MAX_ACTIVE_KEYS = 10;

const keyJson = (k: ApiKeyRow) => ({
  id: k.id, name: k.name, scopes: k.scopes, created_at: toIso(k.createdAt), last_used_at: k.lastUsedAt === null ? null : toIso(k.lastUsedAt),
});

export function apiKeysRouter(deps: IdentityDeps): Router {
  const { rt, bus, validator } = deps;
  const router = Router();

  router.post('/v1/api-keys', requireAuth({ bootstrap: true, session: { minRole: 'owner' } }), validator.for('createApiKey'), async (req, res) => {
    const accountId = accountIdOf(res);
    if (!(await loadAccount(rt.pool, accountId))) throw new ApiError('not_found');
    // Answered here when already plain (nothing appended for a request that changes nothing); the
    // processor checks again over its own state, which decides between concurrent requests.
    if ((await listApiKeys(rt.pool, accountId)).length >= MAX_ACTIVE_KEYS) throw new ApiError('api_key_limit_reached', undefined, { limit: MAX_ACTIVE_KEYS });
    const secret = newToken('sk_', 32);
    const id = randomId('apiKey');
    const scopes = (req.body?.scopes as ApiKeyScope[] | undefined) ?? [...allScopes];
    const secretEnc = sealSecret(rt.cfg.API_KEY_ENCRYPTION_KEY, secret, apiKeyContext(id));
    const result = await submitCommand(bus, { type: 'api_key.issue', accountId, keyId: id, name: req.body?.name ?? null, scopes, secretEnc, maxActive: MAX_ACTIVE_KEYS });
    const row: ApiKeyRow = { id, accountId, name: req.body?.name ?? null, scopes, secretEnc, createdAt: Number(result.body.created_at_ms), lastUsedAt: null, revokedAt: null };
    sendJson(res, 201, { ...keyJson(row), secret });
  });

  router.get('/v1/api-keys', requireAuth({ session: { minRole: 'viewer' } }), validator.for('listApiKeys'), async (_req, res) => {
    sendJson(res, 200, { data: (await listApiKeys(rt.pool, accountIdOf(res))).map(keyJson) });
  });

  router.delete('/v1/api-keys/:keyId', requireAuth({ session: { minRole: 'owner' } }), validator.for('revokeApiKey'), async (req, res) => {
    const key = await findApiKey(rt.pool, String(req.params.keyId));
    if (!key || key.accountId !== accountIdOf(res) || key.revokedAt !== null) throw new ApiError('not_found');
    await submitCommand(bus, { type: 'api_key.revoke', accountId: accountIdOf(res), keyId: key.id });
    res.status(204).end();
  });

  return router;
}
