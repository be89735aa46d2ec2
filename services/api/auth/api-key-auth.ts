/**
 * Signed API-key requests: one 1002 answer for an unknown or revoked key, a bad signature, a timestamp
 * outside ±300 s and a replayed signature. Signatures are compared in constant time and accepted once
 * (Redis SET NX for the replay window).
 */
import type { Request } from 'express';
import { tokenHash, signatureMatches, signRequest, timestampInWindow } from '../../identity/request-signing';
import type { Runtime } from '../../platform/runtime';
import { ApiError } from '../errors';
import { findApiKey, touchApiKey } from '../stores/api-keys';
import type { AuthContext } from './context';
import { openKeySecret, touchDue } from './key-secrets';

const REPLAY_TTL_S = 600;

export async function verifySignedRequest(
  rt: Runtime, req: Request, presented: { keyId: string; timestamp: string | undefined; sign: string | undefined },
): Promise<Extract<AuthContext, { kind: 'api_key' }>> {
  // Built only when thrown: an Error captures a stack, which costs on every request of the hot path.
  const rejected = () => new ApiError('signature_invalid');
  const { keyId, timestamp, sign } = presented;
  if (!timestamp || !sign || !/^key_[0-9a-f]{24}$/.test(keyId)) throw rejected();
  const key = await findApiKey(rt.pool, keyId);
  if (!key || key.revokedAt !== null) throw rejected();
  const expected = signRequest(openKeySecret(rt.cfg.API_KEY_ENCRYPTION_KEY, key.id, key.secretEnc), timestamp, req.method, req.originalUrl, req.rawBody ?? Buffer.alloc(0));
  if (!signatureMatches(expected, sign)) throw rejected();
  const now = rt.clock.now();
  if (!timestampInWindow(timestamp, now)) throw rejected();
  const fresh = await rt.redis.set(`${rt.cfg.topicPrefix}sig:${tokenHash(sign)}`, '1', 'EX', REPLAY_TTL_S, 'NX');
  if (fresh !== 'OK') throw rejected();
  if (touchDue(key.id, now)) await touchApiKey(rt.pool, key.id, now);
  return { kind: 'api_key', accountId: key.accountId, keyId: key.id, scopes: key.scopes };
}
