export { createEnergyClient, type EnergyClient, type EnergyClientOptions, type Order, type OrderRequest, type PagedPath, type PageItem } from './client';
export { EnergyApiError, type ErrorEnvelope } from './errors';
export { defaultRetryPolicy, isReplaySafe, parseRetryAfter, retryDelay, type RetryPolicy } from './retry';
export { signature, signedHeaders, Stamper, type ApiKey, type TimestampUnit } from './signing';
export { dataOf, newClientOrderId, type Answer, type CallResult } from './paging';
export type { components, operations, paths } from '../generated/schema';
