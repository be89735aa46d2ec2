/**
 * Rate budgets in Redis (contract.md section 4), so they hold across API instances: a fixed window per
 * budget and subject. Keys carry the deployment's prefix (which starts with the network).
 */
import type { RequestHandler } from 'express';
import type { Runtime } from '../../platform/runtime';
import { ApiError } from '../errors';
import { clientIp } from './credentials';

export async function spendBudget(rt: Runtime, budget: string, subject: string, limit: number, windowMs: number): Promise<void> {
  const now = rt.clock.now();
  const window = Math.floor(now / windowMs);
  const key = `${rt.cfg.topicPrefix}budget:${budget}:${subject}:${window}`;
  const [[, used]] = (await rt.redis.multi().incr(key).pexpire(key, windowMs * 2).exec()) as [[unknown, number]];
  if (used > limit) {
    const retryAfter = Math.max(1, Math.ceil(((window + 1) * windowMs - now) / 1000));
    throw new ApiError('rate_limited', 'Too many requests; retry later.', { budget, limit, retry_after: retryAfter }, { 'Retry-After': String(retryAfter) });
  }
}

export const MINUTE_MS = 60_000;

/** Reads and writes of one caller (API key, bootstrap token or session), per second. */
export async function spendCallerBudget(rt: Runtime, method: string, subject: string): Promise<void> {
  const write = method !== 'GET' && method !== 'HEAD';
  await spendBudget(rt, write ? 'writes' : 'reads', subject, write ? rt.cfg.BUDGET_WRITES_PER_SEC : rt.cfg.BUDGET_READS_PER_SEC, 1_000);
}

/** Public proofs of address control (challenge verify, sign-in, account creation by signature): per IP per minute. */
export function proofBudget(rt: Runtime): RequestHandler {
  return async (req, _res, next) => {
    await spendBudget(rt, 'proofs', clientIp(req) ?? 'unknown', rt.cfg.BUDGET_PROOFS_PER_IP_PER_MIN, MINUTE_MS);
    next();
  };
}

/** Public reads without credentials (prices, the OpenAPI document): per IP per second. */
export function publicReadBudget(rt: Runtime): RequestHandler {
  return async (req, _res, next) => {
    await spendBudget(rt, 'public-reads', clientIp(req) ?? 'unknown', rt.cfg.BUDGET_PUBLIC_READS_PER_IP_PER_SEC, 1_000);
    next();
  };
}
