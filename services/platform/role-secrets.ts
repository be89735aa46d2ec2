/**
 * Secrets a process holds only when one of its roles needs them. The stake-pool signing keys reach the
 * roles that sign with them or derive the pool's addresses from them; an API process (internet-facing)
 * never holds one, so a flaw in the request path cannot read a key that is not in its memory.
 */
import type { Config } from './config';

/** Roles that read POOL_PRIVATE_KEYS (services/chain/pool-keys.ts): signers, and readers of the pool's addresses. */
export const POOL_KEY_ROLES: readonly string[] = ['broadcaster', 'scheduler', 'promo-granter', 'reconciler', 'subscription-watcher'];

/** Environment variables a child process (an API worker) must not inherit. */
export const WITHHELD_FROM_WORKERS = ['POOL_PRIVATE_KEYS'] as const;

export function needsPoolKeys(roles: readonly string[]): boolean {
  return roles.some((r) => POOL_KEY_ROLES.includes(r));
}

/** The config a process running `roles` keeps: without the pool keys when none of its roles reads them. */
export function configForRoles(cfg: Config, roles: readonly string[]): Config {
  if (needsPoolKeys(roles) || cfg.POOL_PRIVATE_KEYS === undefined) return cfg;
  return { ...cfg, POOL_PRIVATE_KEYS: undefined };
}
