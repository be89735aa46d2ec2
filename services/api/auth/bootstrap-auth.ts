/** Bootstrap tokens: `abt_`, 15 minutes, one address; they open exactly four operations. */
import { tokenHash } from '../../identity/request-signing';
import type { Runtime } from '../../chain/clients';
import { ApiError } from '../errors';
import { accountIdFor, loadAccount } from '../stores/accounts';
import { findBootstrapToken } from '../stores/bootstrap-tokens';
import type { AuthContext } from './context';

export const BOOTSTRAP_TTL_MS = 15 * 60_000;

export async function verifyBootstrap(rt: Runtime, token: string, opened: boolean): Promise<Extract<AuthContext, { kind: 'bootstrap' }>> {
  const row = token.startsWith('abt_') ? await findBootstrapToken(rt.pool, tokenHash(token)) : undefined;
  if (!row || !opened) throw new ApiError('bootstrap_token_invalid');
  if (rt.clock.now() >= row.expiresAt) throw new ApiError('bootstrap_token_expired');
  const accountId = accountIdFor(rt.cfg.BRAND, rt.cfg.NETWORK, row.address);
  const exists = (await loadAccount(rt.pool, accountId)) !== undefined;
  return { kind: 'bootstrap', accountId: exists ? accountId : null, tokenId: row.id, address: row.address };
}
