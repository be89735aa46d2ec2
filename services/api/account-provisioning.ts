/**
 * Creating an account (POST /v1/accounts, first POST /v1/session) and issuing a deposit address to a
 * legacy account. The API draws the derivation index from a PostgreSQL sequence and derives the address
 * from DEPOSIT_XPUB; the command carries both, so a replay derives nothing.
 */
import type { Account } from '../domain/account';
import { depositAddressAt } from '../chain/deposit-derivation';
import { ApiError } from './errors';
import { submitCommand, type IdentityDeps } from './identity-deps';
import { accountIdFor, loadAccount, nextDepositIndex } from './stores/accounts';

export interface NewAccountFields {
  email: string | null;
  displayName: string | null;
}

export async function ensureAccount(deps: Pick<IdentityDeps, 'rt' | 'bus'>, owner: string, fields: NewAccountFields): Promise<{ account: Account; created: boolean }> {
  const { rt, bus } = deps;
  const accountId = accountIdFor(rt.cfg.BRAND, rt.cfg.NETWORK, owner);
  const existing = await loadAccount(rt.pool, accountId);
  if (existing) return { account: existing, created: false };
  const index = await nextDepositIndex(rt.pool);
  const result = await submitCommand(bus, {
    type: 'account.create', accountId, brand: rt.cfg.BRAND, network: rt.cfg.NETWORK, ownerAddress: owner,
    displayName: fields.displayName, email: fields.email, depositAddress: depositAddressAt(rt.cfg.DEPOSIT_XPUB, index), depositIndex: index,
  });
  const account = await loadAccount(rt.pool, accountId);
  if (!account) throw new ApiError('internal_error');
  return { account, created: result.status === 201 };
}

/** The address is issued on the first read when an account has none (accounts created before signup existed). */
export async function withDepositAddress(deps: Pick<IdentityDeps, 'rt' | 'bus'>, account: Account): Promise<Account> {
  if (account.depositAddress) return account;
  const index = await nextDepositIndex(deps.rt.pool);
  await submitCommand(deps.bus, {
    type: 'deposit_address.assign', accountId: account.id, address: depositAddressAt(deps.rt.cfg.DEPOSIT_XPUB, index), derivationIndex: index, reason: 'issue',
  });
  return (await loadAccount(deps.rt.pool, account.id)) ?? account;
}
