/** The signed-in session as GET/POST /v1/session return it, and what its role lets the page offer. */
import type { components } from './api';
import { short } from './format';

export type Session = components['schemas']['Session'];

export const state: { session: Session | null } = { session: null };

const rank = { viewer: 0, editor: 1, owner: 2 } as const;

/** True when the signed-in role is `role` or above; what it cannot do is not offered. */
export function can(role: 'editor' | 'owner'): boolean {
  const mine = state.session?.role;
  return !!mine && rank[mine] >= rank[role];
}

/** The account's title; without one, the shortened owner address (spec: Account.display_name). */
export function accountName(s: Session): string {
  return s.display_name ?? short(s.owner_address, 5);
}
