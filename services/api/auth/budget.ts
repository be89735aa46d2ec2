/**
 * Rate budgets in Redis (contract.md section 4), so they hold across API instances: a fixed window per
 * budget and subject. Keys carry the deployment's prefix (which starts with the network).
 */
import type { Runtime } from '../../platform/runtime';
import { ApiError } from '../errors';

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
