/**
 * Issues an address challenge (AccountChallenge), stored for one use. Its budgets are spent first, by
 * `challengeBudget` ahead of any route work (the promo routes read the database and the chain before
 * they issue one): per IP always, per address unless this IP proved that address recently
 * (proven-ips.ts).
 */
import { randomBytes } from 'node:crypto';
import type { RequestHandler } from 'express';
import { challengeMessage, type ChallengePurpose } from '../../identity/challenge-message';
import { toIso } from '../../platform/clock';
import type { Runtime } from '../../chain/clients';
import { checkAddress } from '../identity-deps';
import { saveChallenge } from '../stores/challenges';
import { MINUTE_MS, spendBudget } from './budget';
import { CHALLENGE_TTL_MS } from './challenge-proof';
import { clientIp } from './credentials';
import { hasProven } from './proven-ips';

export async function spendChallengeBudgets(rt: Runtime, ip: string | null, address: string): Promise<void> {
  await spendBudget(rt, 'challenge-ip', ip ?? 'unknown', rt.cfg.BUDGET_CHALLENGE_PER_IP_PER_MIN, MINUTE_MS);
  if (await hasProven(rt, address, ip)) return;
  await spendBudget(rt, 'challenge-address', address, rt.cfg.BUDGET_CHALLENGE_PER_ADDRESS_PER_MIN, MINUTE_MS);
}

/** Before a challenge route's own work: the body's `address` checked (400 2000), then the budgets. */
export function challengeBudget(rt: Runtime): RequestHandler {
  return async (req, _res, next) => {
    await spendChallengeBudgets(rt, clientIp(req), checkAddress(req.body.address, 'address'));
    next();
  };
}

/** The challenge itself; the route spent its budgets with `challengeBudget`. */
export async function issueChallenge(rt: Runtime, address: string, purpose: ChallengePurpose): Promise<Record<string, unknown>> {
  const issuedAt = rt.clock.now();
  const expiresAt = issuedAt + CHALLENGE_TTL_MS;
  const nonce = randomBytes(16).toString('hex');
  const message = challengeMessage({
    domain: rt.cfg.SERVICE_DOMAIN, network: rt.cfg.NETWORK, purpose, address, nonce, issuedAt: toIso(issuedAt), expiresAt: toIso(expiresAt),
  });
  await saveChallenge(rt.pool, { nonce, address, purpose, message, issuedAt, expiresAt });
  return { nonce, address, purpose, message, issued_at: toIso(issuedAt), expires_at: toIso(expiresAt) };
}
