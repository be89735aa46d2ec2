/**
 * Signed API-key requests: one 1002 answer for an unknown or revoked key, a bad signature, a timestamp
 * outside ±300 s and a replayed signature. Signatures are compared in constant time. A POST, PATCH or
 * DELETE signature is accepted once (Redis SET NX for the replay window); GET and HEAD change nothing,
 * so a polling bot may repeat one inside the window (contract.md section 2). While Redis is away the
 * single use is recorded in PostgreSQL (used_signatures) instead; the two stores are kept in step across
 * the switch-over by usedSignatures (write-behind to PostgreSQL, copy back into Redis on reconnect).
 */
import type { Request } from 'express';
import { tokenHash, signatureMatches, signatureSingleUse, signRequest, timestampInWindow } from '../../identity/request-signing';
import { logger } from '../../platform/logger';
import type { Runtime } from '../../platform/runtime';
import { ApiError } from '../errors';
import { touchApiKey } from '../stores/api-keys';
import type { AuthContext } from './context';
import { apiKeyCache } from './key-cache';
import { openKeySecret, touchDue } from './key-secrets';
import { usedSignatures } from './used-signatures';

export async function verifySignedRequest(
  rt: Runtime, req: Request, presented: { keyId: string; timestamp: string | undefined; sign: string | undefined },
): Promise<Extract<AuthContext, { kind: 'api_key' }>> {
  // Built only when thrown: an Error captures a stack, which costs on every request of the hot path.
  const rejected = () => new ApiError('signature_invalid');
  const { keyId, timestamp, sign } = presented;
  if (!timestamp || !sign || !/^key_[0-9a-f]{24}$/.test(keyId)) throw rejected();
  const key = await apiKeyCache(rt).find(keyId);
  if (!key || key.revokedAt !== null) throw rejected();
  let secret: string;
  try {
    secret = openKeySecret(rt.cfg.API_KEY_DECRYPTION_KEYS, key.id, key.secretEnc);
  } catch {
    // Sealed under a key this process does not hold (a rotation half done): the key cannot sign here.
    logger.error({ keyId: key.id }, 'API-key secret opens with no configured key; finish or undo the key rotation');
    throw rejected();
  }
  const expected = signRequest(secret, timestamp, req.method, req.originalUrl, req.rawBody ?? Buffer.alloc(0));
  if (!signatureMatches(expected, sign)) throw rejected();
  const now = rt.clock.now();
  if (!timestampInWindow(timestamp, now)) throw rejected();
  if (signatureSingleUse(req.method)) {
    if (!(await usedSignatures(rt).firstUse(tokenHash(sign)))) throw rejected();
  }
  if (touchDue(key.id, now)) await touchApiKey(rt.pool, key.id, now);
  return { kind: 'api_key', accountId: key.accountId, keyId: key.id, scopes: key.scopes };
}
