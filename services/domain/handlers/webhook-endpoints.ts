import type { CommandOf } from '../commands';
import { domainError } from '../errors';
import { noEffects, rejected, type Handler, type Outcome, type StateView } from '../outcome';
import type { WebhookEndpoint } from '../webhook-endpoints';

const ROLES = ['primary', 'backup'] as const;

function endpointsOf(state: StateView, accountId: string): WebhookEndpoint[] {
  if (!state.webhookEndpoints) throw new Error('webhook endpoint state not loaded');
  return state.webhookEndpoints.ofAccount(accountId);
}

function applied(status: 200 | 201, changed: WebhookEndpoint[], deleted: string[] = []): Outcome {
  const body = changed[0] ? { id: changed[0].id, updated_at_ms: changed[0].updatedAt } : { id: deleted[0] };
  return { kind: 'applied', status, body, effects: { ...noEffects(), webhookEndpoints: { changed, deleted } } };
}

/** Creates an endpoint in the requested role, or the free one; both roles taken is webhook_limit_reached. */
export const createWebhookEndpoint: Handler<CommandOf<'webhook.create'>> = (state, command) => {
  if (!state.account(command.accountId)) return rejected(domainError('not_found', 'No such account.'));
  const taken = new Set(endpointsOf(state, command.accountId).map((e) => e.role));
  const role = command.role ?? ROLES.find((r) => !taken.has(r));
  if (!role || taken.has(role)) return rejected(domainError('webhook_limit_reached', role ? `The ${role} role is taken.` : undefined));
  return applied(201, [{
    id: command.endpointId, accountId: command.accountId, url: command.url, role, events: command.events, isActive: true,
    secretSealed: command.secretSealed, createdAt: command.issuedAt, updatedAt: command.issuedAt,
  }]);
};

/** Edits an endpoint; taking the role the account's other endpoint holds swaps the two. */
export const updateWebhookEndpoint: Handler<CommandOf<'webhook.update'>> = (state, command) => {
  const all = endpointsOf(state, command.accountId);
  const current = all.find((e) => e.id === command.endpointId);
  if (!current) return rejected(domainError('not_found'));
  const changed: WebhookEndpoint[] = [{
    ...current,
    url: command.url ?? current.url,
    role: command.role ?? current.role,
    events: command.setEvents ? command.events : current.events,
    isActive: command.isActive ?? current.isActive,
    secretSealed: command.secretSealed ?? current.secretSealed,
    updatedAt: command.issuedAt,
  }];
  if (command.role && command.role !== current.role) {
    for (const other of all.filter((e) => e.id !== current.id && e.role === command.role)) changed.push({ ...other, role: current.role, updatedAt: command.issuedAt });
  }
  return applied(200, changed);
};

export const deleteWebhookEndpoint: Handler<CommandOf<'webhook.delete'>> = (state, command) => {
  if (!endpointsOf(state, command.accountId).some((e) => e.id === command.endpointId)) return rejected(domainError('not_found'));
  return applied(200, [], [command.endpointId]);
};
