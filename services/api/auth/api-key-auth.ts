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
import type { Runtime } from '../../chain/clients';
import { ApiError } from '../errors';
import { touchApiKey } from '../stores/api-keys';
import type { AuthContext } from './context';
import type { BudgetSlot } from './budget';
import { apiKeyCache } from './key-cache';
import { openKeySecret, touchDue } from './key-secrets';
import { usedSignatures } from './used-signatures';

/** The caller's budget, spent in the signature's own Redis call when `budgetFor` gives a slot (see below). */
export interface SpentBudget {
  slot: BudgetSlot;
  /** The count after this spend; null: not spent here (spend it as usual). */
  used: number | null;
}

/**
 * `budgetFor(key)`: the budget slot to spend with a single-use signature's check, or null for none (the
 * caller lacks the scope, so nothing is spent, as before). One Redis call then does both.
 */
export async function verifySignedRequest(
  rt: Runtime, req: Request, presented: { keyId: string; timestamp: string | undefined; sign: string | undefined },
  budgetFor: (key: { id: string; scopes: readonly string[] }) => BudgetSlot | null = () => null,
): Promise<{ auth: Extract<AuthContext, { kind: 'api_key' }>; budget: SpentBudget | null }> {
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
  let budget: SpentBudget | null = null;
  if (signatureSingleUse(req.method)) {
    const slot = budgetFor(key);
    if (slot) {
      const use = await usedSignatures(rt).firstUseAndSpend(tokenHash(sign), slot);
      if (!use.fresh) throw rejected();
      budget = { slot, used: use.used };
    } else if (!(await usedSignatures(rt).firstUse(tokenHash(sign)))) throw rejected();
  }
  if (touchDue(key.id, now)) await touchApiKey(rt.pool, key.id, now);
  return { auth: { kind: 'api_key', accountId: key.accountId, keyId: key.id, scopes: key.scopes }, budget };
}
