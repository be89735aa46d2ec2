/**
 * Every feature state the processor loads, serves to the handlers, and saves, in this order (saves in
 * list order too: a store whose rows refer to another's comes after it). A new feature: its state file
 * (a FeatureState, feature-state.ts) and one line here.
 */
import { AddressBookState } from './address-book-store';
import { DeskState } from './desk-store';
import { ApiKeyState } from './api-key-store';
import { BatchState } from './batch-store';
import type { FeatureStateKind } from './feature-state';
import { MemberState } from './member-store';
import { OrderState } from './order-store';
import { PromoState } from './promo-store';
import { SubscriptionState } from './subscription-store';
import { WebhookEndpointState } from './webhook-endpoint-store';

export const processorStates: readonly FeatureStateKind[] = [
  { view: 'orders', load: (client, commands) => OrderState.load(client, commands) },
  { view: 'promo', load: (client, commands) => PromoState.load(client, commands) },
  { view: 'apiKeys', load: (client, commands) => ApiKeyState.load(client, commands) },
  { view: 'webhookEndpoints', load: (client, commands) => WebhookEndpointState.load(client, commands) },
  { view: 'batches', load: (client, commands) => BatchState.load(client, commands) },
  { view: 'members', load: (client, commands) => MemberState.load(client, commands) },
  { view: 'addressBook', load: (client, commands) => AddressBookState.load(client, commands) },
  { view: 'subscriptions', load: (client, commands) => SubscriptionState.load(client, commands) },
  // After orders: a desk payment's row names the order it placed.
  { view: 'desk', load: (client, commands) => DeskState.load(client, commands) },
];
