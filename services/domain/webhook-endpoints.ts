/**
 * Webhook endpoints as processor state: created, edited, re-keyed and deleted by commands on the log, so
 * a restore brings them back with their secrets (sealed under WEBHOOK_SECRET_KEY, bound to the endpoint
 * id; never in clear on a topic). Delivery bookkeeping (`last_delivery_*`) stays with the dispatcher.
 */
export type EndpointRole = 'primary' | 'backup';

export interface WebhookEndpoint {
  id: string;
  accountId: string;
  url: string;
  role: EndpointRole;
  events: string[] | null;
  isActive: boolean;
  secretSealed: string;
  createdAt: number;
  updatedAt: number;
}

/** What a webhook command may read: the account's endpoints as of the command. */
export interface WebhookEndpointView {
  ofAccount(accountId: string): WebhookEndpoint[];
}
