/**
 * Secrets a process holds only when one of its roles needs them. The stake-pool signing keys reach the
 * roles that sign with them or derive the pool's addresses from them; an API process (internet-facing)
 * never holds one, so a flaw in the request path cannot read a key that is not in its memory.
 */
import type { Config } from './config';

/** Roles that read POOL_PRIVATE_KEYS (services/chain/pool-keys.ts): signers, and readers of the pool's addresses. */
export const POOL_KEY_ROLES: readonly string[] = ['broadcaster', 'scheduler', 'promo-granter', 'reconciler', 'subscription-watcher'];

/** Roles that read DESK_PRIVATE_KEY (services/chain/desk-key.ts): only the one that signs the desk's returns. */
export const DESK_KEY_ROLES: readonly string[] = ['desk-returner'];

/** Environment variables a child process (an API worker) must not inherit. */
export const WITHHELD_FROM_WORKERS = ['POOL_PRIVATE_KEYS', 'DESK_PRIVATE_KEY'] as const;

export function needsPoolKeys(roles: readonly string[]): boolean {
  return roles.some((r) => POOL_KEY_ROLES.includes(r));
}

/** The config a process running `roles` keeps: without the pool keys and the desk key when none of its roles reads them. */
export function configForRoles(cfg: Config, roles: readonly string[]): Config {
  const out = needsPoolKeys(roles) || cfg.POOL_PRIVATE_KEYS === undefined ? cfg : { ...cfg, POOL_PRIVATE_KEYS: undefined };
  if (roles.some((r) => DESK_KEY_ROLES.includes(r)) || out.DESK_PRIVATE_KEY === undefined) return out;
  return { ...out, DESK_PRIVATE_KEY: undefined };
}
