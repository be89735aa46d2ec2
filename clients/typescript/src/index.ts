/**
 * @energy-rental/client for Node (22+): the typed API-key client, request signing, the retry policy, int64
 * handling and the webhook receiver check. The browser entry (no Node modules) is `@energy-rental/client/browser`.
 */
export { createEnergyClient, DEFAULT_TIMEOUT_MS, userAgent, type EnergyClient, type EnergyClientOptions, type Order, type OrderRequest, type PagedPath, type PageItem } from './client';
export { EnergyApiError, isApiError, type ErrorCode, type ErrorEnvelope, type ErrorSlug } from './errors';
export { parseJson, stringifyJson, type Int64 } from './int64';
export { defaultRetryPolicy, isReplaySafe, parseRetryAfter, retryDelay, type RetryPolicy } from './retry';
export { RequestTimeoutError } from './retrying-fetch';
export { signature, signedHeaders, Stamper, type ApiKey, type TimestampUnit } from './signing';
export { dataOf, newClientOrderId, type Answer, type CallResult } from './paging';
export {
  memoryEventIdStore, verifyWebhook, webhookReceiver, WebhookVerificationError, WEBHOOK_TOLERANCE_SECONDS,
  type EventIdStore, type HeaderSource, type Receipt, type VerifyOptions, type WebhookEvent, type WebhookFailure, type WebhookReceiverOptions,
} from './webhooks';
export { CLIENT_VERSION } from './version';
export type { components, operations, paths } from '../generated/schema';
