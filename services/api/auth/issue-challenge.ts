/** Issues an address challenge (AccountChallenge): budgets per IP and per address, then stored for one use. */
import { randomBytes } from 'node:crypto';
import { challengeMessage, type ChallengePurpose } from '../../identity/challenge-message';
import { toIso } from '../../platform/clock';
import type { Runtime } from '../../chain/clients';
import { saveChallenge } from '../stores/challenges';
import { spendBudget } from './budget';
import { CHALLENGE_TTL_MS } from './challenge-proof';

const MINUTE = 60_000;

export async function issueChallenge(rt: Runtime, ip: string | null, address: string, purpose: ChallengePurpose): Promise<Record<string, unknown>> {
  await spendBudget(rt, 'challenge-ip', ip ?? 'unknown', rt.cfg.BUDGET_CHALLENGE_PER_IP_PER_MIN, MINUTE);
  await spendBudget(rt, 'challenge-address', address, rt.cfg.BUDGET_CHALLENGE_PER_ADDRESS_PER_MIN, MINUTE);
  const issuedAt = rt.clock.now();
  const expiresAt = issuedAt + CHALLENGE_TTL_MS;
  const nonce = randomBytes(16).toString('hex');
  const message = challengeMessage({
    domain: rt.cfg.SERVICE_DOMAIN, network: rt.cfg.NETWORK, purpose, address, nonce, issuedAt: toIso(issuedAt), expiresAt: toIso(expiresAt),
  });
  await saveChallenge(rt.pool, { nonce, address, purpose, message, issuedAt, expiresAt });
  return { nonce, address, purpose, message, issued_at: toIso(issuedAt), expires_at: toIso(expiresAt) };
}
