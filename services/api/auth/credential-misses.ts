/**
 * Credentials that match nothing cost a database read each (an unknown API key misses the key cache, a
 * bootstrap token and a session cookie are always looked up). An IP that sent more than
 * BUDGET_CREDENTIAL_MISSES_PER_IP_PER_MIN of them this minute gets 429 before any lookup; callers whose
 * credentials work never count, so one busy IP of good callers is not held back.
 */
import type { Request } from 'express';
import type { Runtime } from '../../chain/clients';
import { ApiError } from '../errors';
import { budgetSlot, checkBudget, countSlot, MINUTE_MS, usedOf } from './budget';
import { clientIp } from './credentials';

const slotOf = (rt: Runtime, req: Request) =>
  budgetSlot(rt, 'credential-misses', clientIp(req) ?? 'unknown', rt.cfg.BUDGET_CREDENTIAL_MISSES_PER_IP_PER_MIN, MINUTE_MS);

/** 429 when this IP's misses this minute are spent already. */
export async function refuseAfterMisses(rt: Runtime, req: Request): Promise<void> {
  const slot = slotOf(rt, req);
  checkBudget(slot, (await usedOf(rt, slot)) + 1);
}

/** The credential codes a lookup that found nothing (or found it dead) answers. */
const missCodes = new Set(['signature_invalid', 'bootstrap_token_invalid', 'bootstrap_token_expired', 'session_expired']);

/** Runs a lookup; a failed one counts against the IP. */
export async function countingMisses<T>(rt: Runtime, req: Request, lookup: () => Promise<T>): Promise<T> {
  try {
    return await lookup();
  } catch (err) {
    if (err instanceof ApiError && missCodes.has(err.slug)) await countSlot(rt, slotOf(rt, req));
    throw err;
  }
}
