import { emptyIdentity, emptyTotals, type Account } from '../../../services/domain/account';
import type { ApiKey, ApiKeyView } from '../../../services/domain/api-keys';
import { applyCommand } from '../../../services/domain/apply';
import type { Command } from '../../../services/domain/commands';
import type { StateView } from '../../../services/domain/outcome';

const ctx = { network: 'nile' as const, brand: 'energy' };
const account: Account = {
  id: 'acc_1', brand: 'energy', network: 'nile', ownerAddress: null, displayName: null, status: 'active', balanceSun: 0n, balanceUsdt: 0n, reservedSun: 0n,
  totals: emptyTotals(), ...emptyIdentity(), createdAt: 0, updatedAt: 0,
};

function view(keys: ApiKey[]): StateView {
  const apiKeys: ApiKeyView = {
    byId: (id) => keys.find((k) => k.id === id),
    activeOf: (a) => keys.filter((k) => k.accountId === a && k.revokedAt === null),
  };
  return { account: (id) => (id === account.id ? account : undefined), apiKeys };
}

const meta = (n: number) => ({ commandId: `cmd_${n}`, accountId: 'acc_1', issuedAt: 1_700_000_000_000 + n, deadlineAt: null, replyTo: null });
const issue = (n: number, maxActive = 10): Command => ({ ...meta(n), type: 'api_key.issue', keyId: `key_${n}`, name: null, scopes: ['account.read'], secretEnc: `sealed${n}`, maxActive });
const key = (n: number, revokedAt: number | null = null, accountId = 'acc_1'): ApiKey => ({ id: `key_${n}`, accountId, name: null, scopes: [], secretEnc: 's', createdAt: n, revokedAt });

describe('API keys as commands', () => {
  it('issues a key with the sealed secret and the command time', () => {
    const out = applyCommand(view([]), issue(1) as never, ctx);
    expect(out.kind).toBe('applied');
    if (out.kind !== 'applied') return;
    expect(out.status).toBe(201);
    expect(out.effects.apiKeys).toEqual([{ id: 'key_1', accountId: 'acc_1', name: null, scopes: ['account.read'], secretEnc: 'sealed1', createdAt: 1_700_000_000_001, revokedAt: null }]);
  });
  it('refuses past the limit carried in the command, counting only active keys', () => {
    const active = [key(1), key(2)];
    const out = applyCommand(view(active), issue(3, 2) as never, ctx);
    expect(out).toMatchObject({ kind: 'rejected', error: { slug: 'api_key_limit_reached', details: { limit: 2 } } });
    expect(applyCommand(view([key(1), key(2, 5)]), issue(3, 2) as never, ctx).kind).toBe('applied');
  });
  it('refuses an unknown account', () => {
    expect(applyCommand(view([]), { ...issue(1), accountId: 'acc_x' } as never, ctx)).toMatchObject({ kind: 'rejected', error: { slug: 'not_found' } });
  });
  it('revokes an active key of the account once; another account\'s key or a revoked one is not found', () => {
    const revoke = (id: string): Command => ({ ...meta(9), type: 'api_key.revoke', keyId: id });
    const out = applyCommand(view([key(1)]), revoke('key_1') as never, ctx);
    expect(out.kind === 'applied' && out.effects.apiKeys?.[0].revokedAt).toBe(1_700_000_000_009);
    expect(applyCommand(view([key(1, 7)]), revoke('key_1') as never, ctx)).toMatchObject({ kind: 'rejected', error: { slug: 'not_found' } });
    expect(applyCommand(view([key(1, null, 'acc_2')]), revoke('key_1') as never, ctx)).toMatchObject({ kind: 'rejected', error: { slug: 'not_found' } });
    expect(applyCommand(view([]), revoke('key_9') as never, ctx)).toMatchObject({ kind: 'rejected', error: { slug: 'not_found' } });
  });
});
