/**
 * Who is calling, as the authentication middleware leaves it in `res.locals.auth` for every route.
 * Routes read the account id from here only: nothing in a request body or path can name another account.
 */
export type ApiKeyScope =
  | 'account.read' | 'balance.read' | 'orders.read' | 'orders.write' | 'webhooks.read' | 'webhooks.write';

export const allScopes: readonly ApiKeyScope[] = ['account.read', 'balance.read', 'orders.read', 'orders.write', 'webhooks.read', 'webhooks.write'];

export type MemberRole = 'owner' | 'editor' | 'viewer';

export type AuthContext =
  | { kind: 'api_key'; accountId: string; keyId: string; scopes: ApiKeyScope[] }
  | { kind: 'session'; accountId: string; sessionId: string; address: string; role: MemberRole }
  | { kind: 'bootstrap'; accountId: string | null; tokenId: string; address: string };

/** What a route accepts; the middleware answers 401/403 with the contract's codes otherwise. */
export interface AuthRequirement {
  /** API keys accepted, with this scope (null: any key). Omitted: API keys refused. */
  apiKey?: { scope: ApiKeyScope | null };
  /** Sessions accepted from this role up. Omitted: sessions refused. */
  session?: { minRole: MemberRole };
  /** The bootstrap token opens exactly four operations; true only on those. */
  bootstrap?: boolean;
  /** A POST that spends the reads budget (POST /v1/estimates: a read with a body). Default: by method. */
  readBudget?: boolean;
}
