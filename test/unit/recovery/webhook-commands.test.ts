import { emptyIdentity, emptyTotals, type Account } from '../../../services/domain/account';
import { applyCommand } from '../../../services/domain/apply';
import type { Command } from '../../../services/domain/commands';
import type { StateView } from '../../../services/domain/outcome';
import type { WebhookEndpoint } from '../../../services/domain/webhook-endpoints';

const ctx = { network: 'nile' as const, brand: 'energy' };
const account: Account = {
  id: 'acc_1', brand: 'energy', network: 'nile', ownerAddress: null, displayName: null, status: 'active', balanceSun: 0n, balanceUsdt: 0n, reservedSun: 0n,
  totals: emptyTotals(), ...emptyIdentity(), createdAt: 0, updatedAt: 0,
};
const view = (endpoints: WebhookEndpoint[]): StateView => ({
  account: (id) => (id === account.id ? account : undefined),
  webhookEndpoints: { ofAccount: (a) => endpoints.filter((e) => e.accountId === a) },
});
const meta = { commandId: 'cmd_1', accountId: 'acc_1', issuedAt: 1_000, deadlineAt: null, replyTo: null };
const ep = (id: string, role: 'primary' | 'backup'): WebhookEndpoint => ({
  id, accountId: 'acc_1', url: `https://x/${id}`, role, events: null, isActive: true, secretSealed: `s_${id}`, createdAt: 1, updatedAt: 1,
});
const create = (role: 'primary' | 'backup' | null): Command => ({ ...meta, type: 'webhook.create', endpointId: 'whk_new', url: 'https://x/new', role, events: ['balance.credited'], secretSealed: 'sealed' });
const update = (changes: Partial<Extract<Command, { type: 'webhook.update' }>>): Command => ({
  ...meta, type: 'webhook.update', endpointId: 'whk_a', url: null, role: null, setEvents: false, events: null, isActive: null, secretSealed: null, ...changes,
});

describe('webhook endpoints as commands', () => {
  it('creates in the free role, refuses a taken one and a third endpoint', () => {
    const out = applyCommand(view([ep('whk_a', 'primary')]), create(null) as never, ctx);
    expect(out.kind === 'applied' && out.effects.webhookEndpoints?.changed[0]).toMatchObject({ id: 'whk_new', role: 'backup', secretSealed: 'sealed', createdAt: 1_000 });
    expect(applyCommand(view([ep('whk_a', 'primary')]), create('primary') as never, ctx)).toMatchObject({ kind: 'rejected', error: { slug: 'webhook_limit_reached' } });
    expect(applyCommand(view([ep('whk_a', 'primary'), ep('whk_b', 'backup')]), create(null) as never, ctx)).toMatchObject({ kind: 'rejected', error: { slug: 'webhook_limit_reached' } });
  });
  it('edits only what the command sets; events only with setEvents; a new sealed secret rotates', () => {
    const out = applyCommand(view([{ ...ep('whk_a', 'primary'), events: ['x'] }]), update({ url: 'https://y/', secretSealed: 'new' }) as never, ctx);
    expect(out.kind === 'applied' && out.effects.webhookEndpoints?.changed).toEqual([{ ...ep('whk_a', 'primary'), events: ['x'], url: 'https://y/', secretSealed: 'new', updatedAt: 1_000 }]);
    const cleared = applyCommand(view([{ ...ep('whk_a', 'primary'), events: ['x'] }]), update({ setEvents: true, events: null }) as never, ctx);
    expect(cleared.kind === 'applied' && cleared.effects.webhookEndpoints?.changed[0].events).toBeNull();
  });
  it('taking the other endpoint\'s role swaps both in one effect', () => {
    const out = applyCommand(view([ep('whk_a', 'backup'), ep('whk_b', 'primary')]), update({ role: 'primary' }) as never, ctx);
    const changed = out.kind === 'applied' ? out.effects.webhookEndpoints!.changed : [];
    expect(changed.map((e) => [e.id, e.role])).toEqual([['whk_a', 'primary'], ['whk_b', 'backup']]);
  });
  it('deletes the account\'s endpoint; another\'s or an unknown one is not found', () => {
    const out = applyCommand(view([ep('whk_a', 'primary')]), { ...meta, type: 'webhook.delete', endpointId: 'whk_a' } as never, ctx);
    expect(out.kind === 'applied' && out.effects.webhookEndpoints).toEqual({ changed: [], deleted: ['whk_a'] });
    expect(applyCommand(view([{ ...ep('whk_a', 'primary'), accountId: 'acc_2' }]), { ...meta, type: 'webhook.delete', endpointId: 'whk_a' } as never, ctx)).toMatchObject({ kind: 'rejected', error: { slug: 'not_found' } });
    expect(applyCommand(view([]), update({}) as never, ctx)).toMatchObject({ kind: 'rejected', error: { slug: 'not_found' } });
  });
});
