/**
 * Rate budgets in Redis (contract.md section 4), so they hold across API instances: a fixed window per
 * budget and subject. Keys carry the deployment's prefix (which starts with the network).
 *
 * Without Redis the budgets stay on, counted in this process's memory (the same windows): a deployment of
 * N API instances then allows up to N times a budget until Redis is back. Neither closed (every request
 * refused while a cache is away) nor open (no limit at all): the limits that protect the service remain.
 */
import type { RequestHandler } from 'express';
import type { Runtime } from '../../chain/clients';
import { luaScript, withRedis } from '../../platform/redis';
import { ApiError } from '../errors';
import { clientIp } from './credentials';

/** One spend of a budget: its Redis key for the current window, and what the answer is checked against. */
export interface BudgetSlot {
  budget: string;
  key: string;
  /** The key's lifetime in Redis (twice the window). */
  ttlMs: number;
  limit: number;
  now: number;
  windowEndsAt: number;
}

export function budgetSlot(rt: Runtime, budget: string, subject: string, limit: number, windowMs: number): BudgetSlot {
  const now = rt.clock.now();
  const window = Math.floor(now / windowMs);
  return { budget, key: `${rt.cfg.topicPrefix}budget:${budget}:${subject}:${window}`, ttlMs: windowMs * 2, limit, now, windowEndsAt: (window + 1) * windowMs };
}

/** 429 1020 with Retry-After when `used` (the count after this spend) is past the slot's limit. */
export function checkBudget(slot: BudgetSlot, used: number): void {
  if (used > slot.limit) {
    const retryAfter = Math.max(1, Math.ceil((slot.windowEndsAt - slot.now) / 1000));
    throw new ApiError('rate_limited', 'Too many requests; retry later.', { budget: slot.budget, limit: slot.limit, retry_after: retryAfter }, { 'Retry-After': String(retryAfter) });
  }
}

export async function spendBudget(rt: Runtime, budget: string, subject: string, limit: number, windowMs: number): Promise<void> {
  await spendSlot(rt, budgetSlot(rt, budget, subject, limit, windowMs));
}

async function spendSlot(rt: Runtime, slot: BudgetSlot): Promise<void> {
  checkBudget(slot, await countSlot(rt, slot));
}

/** Counts one spend and answers the window's count, without checking it. */
export async function countSlot(rt: Runtime, slot: BudgetSlot): Promise<number> {
  return withRedis(
    rt.redis,
    async (redis) => Number(await spendScript(redis, slot.key, slot.ttlMs)),
    () => localCount(slot.key, slot.windowEndsAt, slot.now),
  );
}

/** The window's count so far, spending nothing. */
export async function usedOf(rt: Runtime, slot: BudgetSlot): Promise<number> {
  return withRedis(rt.redis, async (redis) => Number((await redis.get(slot.key)) ?? 0), () => {
    const entry = local.get(slot.key);
    return entry && entry.endsAt > slot.now ? entry.used : 0;
  });
}

/**
 * INCR of KEYS[i], and PEXPIRE by ARGV[i] on the window's first use, answering the count: one command per
 * request where MULTI/INCR/PEXPIRE/EXEC were four. A key never outlives twice its window either way. Also the
 * tail of the signature check's script (used-signatures.ts), which spends in the same call.
 */
export function spendLua(i: number): string {
  return `local n = redis.call('INCR', KEYS[${i}]) if n == 1 then redis.call('PEXPIRE', KEYS[${i}], ARGV[${i}]) end return n`;
}

const spendScript = luaScript(spendLua(1), 1);

export const MINUTE_MS = 60_000;

/** Reads and writes of one caller (API key, bootstrap token or session), per second. */
export async function spendCallerBudget(rt: Runtime, method: string, subject: string): Promise<void> {
  await spendSlot(rt, callerBudgetSlot(rt, method, subject));
}

/** The slot spendCallerBudget spends (API-key writes spend it in the signature's own Redis call). */
export function callerBudgetSlot(rt: Runtime, method: string, subject: string): BudgetSlot {
  const write = method !== 'GET' && method !== 'HEAD';
  return budgetSlot(rt, write ? 'writes' : 'reads', subject, write ? rt.cfg.BUDGET_WRITES_PER_SEC : rt.cfg.BUDGET_READS_PER_SEC, 1_000);
}

/**
 * The account's own ceiling over all its callers (keys, sessions, a bootstrap token): without it each
 * new key or session brought a whole new budget. BUDGET_ACCOUNT_CALLERS callers' worth per second.
 */
export async function spendAccountBudget(rt: Runtime, method: string, accountId: string): Promise<void> {
  const caller = callerBudgetSlot(rt, method, accountId);
  await spendSlot(rt, budgetSlot(rt, `account-${caller.budget}`, accountId, caller.limit * rt.cfg.BUDGET_ACCOUNT_CALLERS, 1_000));
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

/** Counts of the budget windows of this process, used while Redis is away; ended windows are dropped. */
const local = new Map<string, { endsAt: number; used: number }>();

function localCount(key: string, endsAt: number, now: number): number {
  if (local.size > 50_000) for (const [k, v] of local) if (v.endsAt <= now) local.delete(k);
  const entry = local.get(key) ?? { endsAt, used: 0 };
  entry.used += 1;
  local.set(key, entry);
  return entry.used;
}
