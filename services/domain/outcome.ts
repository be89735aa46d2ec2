/** What applying one command produces: plain data the processor persists in one transaction. */
import type { Account } from './account';
import type { Command } from './commands';
import type { DomainError } from './errors';
import type { DomainEvent } from './events';
import type { Deposit } from './deposits';
import type { Journal } from './ledger';
import type { IdempotencyRecord, Order } from './orders/rules';
import type { DevCode, PromoConfig, Redemption } from './promo/rules';
import type { OrderEvent } from './order-events';
import type { ApiKey, ApiKeyView } from './api-keys';
import type { WebhookEndpoint, WebhookEndpointView } from './webhook-endpoints';
import type { Batch } from './batches/rules';
import type { Member, MemberView } from './members';
import type { AddressBookEntry, AddressBookView } from './address-book';
import type { Subscription, SubscriptionView } from './subscriptions/rules';
import type { DeskPayment } from './desk/rules';

export interface Effects {
  /** Final state of every account the command changed (or created). */
  accounts: Account[];
  journals: Journal[];
  /** Deposits seen or credited (deposit commands only). */
  deposits?: Deposit[];
  events: DomainEvent[];
  /** Commands to append to the log once this one is committed (through the outbox). */
  followUps: Command[];
  /** Orders created or changed, and idempotency records written (order commands only). */
  orders?: Order[];
  idempotency?: IdempotencyRecord[];
  /** Promo commands only: the new configuration, redemptions created or changed. */
  promoConfig?: PromoConfig;
  redemptions?: Redemption[];
  devCodes?: DevCode[];
  /** Transitions of the changed orders, for the order-events topic (services/domain/order-events.ts). */
  orderEvents?: OrderEvent[];
  /** API keys issued or revoked (api_key commands only). */
  apiKeys?: ApiKey[];
  /** Webhook endpoints changed (final state) and deleted (ids) (webhook commands only). */
  webhookEndpoints?: { changed: WebhookEndpoint[]; deleted: string[] };
  /** Batch commands only: batches created or changed. */
  batches?: Batch[];
  /** Member commands only: members added or re-roled (final state), and removed. */
  members?: { changed: Member[]; removed: Member[] };
  /** Address-book commands only: entries saved (final state), and deleted (ids). */
  addressBook?: { changed: AddressBookEntry[]; deleted: string[] };
  /** Subscription commands only: subscriptions created or changed. */
  subscriptions?: Subscription[];
  /** Desk commands only: desk payments recorded or changed. */
  deskPayments?: DeskPayment[];
}

export type Outcome =
  | { kind: 'applied'; status: 200 | 201 | 202; body: Record<string, unknown>; effects: Effects }
  | { kind: 'rejected'; error: DomainError };

/** Read access to the state a command may depend on. */
export interface StateView {
  account(id: string): Account | undefined;
  /** Deposit rows, loaded for the batch's deposit commands. */
  deposit?(id: string): Deposit | undefined;
  /** Order state, loaded for the batch's order commands (services/processor/order-store.ts). */
  orders?: OrderView;
  /** Promo state, loaded for the batch's promo commands (services/promo/processor-store.ts). */
  promo?: PromoView;
  /** API keys, loaded for the batch's api_key commands (services/processor/api-key-store.ts). */
  apiKeys?: ApiKeyView;
  /** Webhook endpoints, loaded for the batch's webhook commands (services/processor/webhook-endpoint-store.ts). */
  webhookEndpoints?: WebhookEndpointView;
  /** Batch state, loaded for the batch's batch commands (services/batches/store.ts). */
  batches?: BatchView;
  /** Members, loaded for the batch's member commands (services/processor/member-store.ts). */
  members?: MemberView;
  /** Address books, loaded for the batch's address_book commands (services/processor/address-book-store.ts). */
  addressBook?: AddressBookView;
  /** Subscription state, loaded for the batch's subscription commands (services/subscriptions/store.ts). */
  subscriptions?: SubscriptionView;
  /** Desk payments, loaded for the batch's desk commands (services/processor/desk-store.ts). */
  desk?: DeskView;
}

export interface DeskView {
  payment(paymentId: string): DeskPayment | undefined;
}

export interface BatchView {
  byId(batchId: string): Batch | undefined;
  byKey(accountId: string, batchKey: string): Batch | undefined;
}

export interface PromoView {
  config(): PromoConfig | null;
  redemption(address: string): Redemption | undefined;
  /** Claims counted against a UTC day (YYYY-MM-DD). */
  grantsOn(day: string): number;
  devCode(address: string): DevCode | undefined;
  devCodeByCode(code: string): DevCode | undefined;
}

export interface OrderView {
  byId(orderId: string): Order | undefined;
  byClientId(accountId: string, clientOrderId: string): Order | undefined;
  byQuote(accountId: string, quoteId: string): Order | undefined;
  idempotency(accountId: string, key: string): IdempotencyRecord | undefined;
}

export interface ApplyContext {
  network: 'mainnet' | 'nile';
  brand: string;
}

export function noEffects(): Effects {
  return { accounts: [], journals: [], events: [], followUps: [] };
}

export function rejected(error: DomainError): Outcome {
  return { kind: 'rejected', error };
}

export type Handler<C extends Command> = (state: StateView, command: C, ctx: ApplyContext) => Outcome;
