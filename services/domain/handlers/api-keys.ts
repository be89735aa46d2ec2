import type { ApiKey } from '../api-keys';
import type { CommandOf } from '../commands';
import { domainError } from '../errors';
import { noEffects, rejected, type Handler, type Outcome } from '../outcome';

const keyBody = (k: ApiKey) => ({ id: k.id, name: k.name, scopes: k.scopes, created_at_ms: k.createdAt });

function applied(status: 200 | 201, key: ApiKey): Outcome {
  return { kind: 'applied', status, body: keyBody(key), effects: { ...noEffects(), apiKeys: [key] } };
}

/** Issues a key unless the account already has `maxActive` active ones (the limit travels in the command). */
export const issueApiKey: Handler<CommandOf<'api_key.issue'>> = (state, command) => {
  if (!state.account(command.accountId)) return rejected(domainError('not_found', 'No such account.'));
  const keys = state.apiKeys;
  if (!keys) throw new Error('api key state not loaded');
  if (keys.byId(command.keyId)) return rejected(domainError('internal_error', 'An API key with this id exists.')); // ids are random: never expected
  if (keys.activeOf(command.accountId).length >= command.maxActive) {
    return rejected(domainError('api_key_limit_reached', undefined, { limit: command.maxActive }));
  }
  return applied(201, {
    id: command.keyId, accountId: command.accountId, name: command.name, scopes: command.scopes,
    secretEnc: command.secretEnc, createdAt: command.issuedAt, revokedAt: null,
  });
};

/** Revokes an active key of the account at the command's time; another account's key is not found. */
export const revokeApiKey: Handler<CommandOf<'api_key.revoke'>> = (state, command) => {
  const key = state.apiKeys?.byId(command.keyId);
  if (!key || key.accountId !== command.accountId || key.revokedAt !== null) return rejected(domainError('not_found'));
  return applied(200, { ...key, revokedAt: command.issuedAt });
};
