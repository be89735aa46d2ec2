/**
 * Which IPs have recently proven control of an address (a good signature over a challenge issued to it).
 * A challenge request for an address from such an IP does not spend that address's budget: addresses
 * are public, so a budget per address that anyone may spend lets five requests a minute keep its owner
 * from every sign-in. Strangers still spend it, so a flood of challenges for one address from anywhere
 * else stops at the budget (docs/security.md, "Challenge budgets").
 *
 * Kept in Redis beside the budgets; while Redis is away, in this process's memory (an instance that
 * did not see the proof then counts the owner like anyone else: the budget holds, only the exemption
 * may be lost).
 */
import type { Runtime } from '../../chain/clients';
import { withRedis } from '../../platform/redis';

/** How long a proof from an IP exempts it: a month of sign-ins from the same place. */
export const PROVEN_IP_TTL_MS = 30 * 86_400_000;

const keyOf = (rt: Runtime, address: string, ip: string) => `${rt.cfg.topicPrefix}proven:${address}:${ip}`;

/** Bounded: past this many entries, expired ones are dropped, then the oldest. */
const LOCAL_MAX = 50_000;
const local = new Map<string, number>();

export async function rememberProof(rt: Runtime, address: string, ip: string | null): Promise<void> {
  if (ip === null) return;
  const key = keyOf(rt, address, ip);
  const now = rt.clock.now();
  rememberLocally(key, now + PROVEN_IP_TTL_MS, now);
  await withRedis(rt.redis, async (redis) => void (await redis.set(key, '1', 'PX', PROVEN_IP_TTL_MS)), () => undefined);
}

export async function hasProven(rt: Runtime, address: string, ip: string | null): Promise<boolean> {
  if (ip === null) return false;
  const key = keyOf(rt, address, ip);
  const localUntil = local.get(key);
  if (localUntil !== undefined && localUntil > rt.clock.now()) return true;
  return withRedis(rt.redis, async (redis) => (await redis.exists(key)) === 1, () => false);
}

function rememberLocally(key: string, until: number, now: number): void {
  if (local.size >= LOCAL_MAX) {
    for (const [k, v] of local) if (v <= now) local.delete(k);
    if (local.size >= LOCAL_MAX) local.delete(local.keys().next().value as string);
  }
  local.delete(key);
  local.set(key, until);
}
