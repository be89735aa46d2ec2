/** The signed-in session as GET/POST /v1/session return it, and what its role lets the page offer. */
export interface Session {
  account_id: string;
  account_status: string;
  display_name: string | null;
  owner_address: string | null;
  address: string;
  role: 'owner' | 'editor' | 'viewer' | null;
  network: 'mainnet' | 'nile';
  csrf_token: string;
  expires_at: string;
}

export const state: { session: Session | null } = { session: null };

const rank = { viewer: 0, editor: 1, owner: 2 } as const;

/** True when the signed-in role is `role` or above; what it cannot do is not offered. */
export function can(role: 'editor' | 'owner'): boolean {
  const mine = state.session?.role;
  return !!mine && rank[mine] >= rank[role];
}
