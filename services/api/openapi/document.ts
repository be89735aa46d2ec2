/**
 * The OpenAPI 3.1 document: request and response schemas declared once, served at GET /v1/openapi.json
 * and used to validate every request. Each area adds its paths from its own file.
 */
import { identityPaths, identitySchemas, identitySecuritySchemes } from './identity-paths';
import { ledgerPaths, ledgerSchemas } from './ledger-paths';
import { platformPaths } from './platform-paths';
import { sharedSchemas } from './shared-schemas';
import { webhookPaths, webhookSchemas } from './webhooks-paths';
import { orderPaths, orderSchemas } from './orders-paths';
import { promoPaths, promoSchemas } from './promo-paths';
import { statsPaths, statsSchemas } from './stats-paths';
import { batchPaths, batchSchemas } from './batches-paths';
import { subscriptionPaths, subscriptionSchemas } from './subscriptions-paths';
import { estimatePaths, estimateSchemas } from './estimates-paths';
import { completeDocument } from './examples';
import { declareErrorResponses } from './error-responses';
import { eventSchemas, webhooks } from './webhook-events';
import type { OpenApiDocument } from './operation';

/** The public origins of the deployments (config PUBLIC_ORIGIN_*); unset: a placeholder variable. */
export interface PublicOrigins {
  mainnet?: string;
  nile?: string;
}

function server(network: 'mainnet' | 'nile', origin: string | undefined) {
  const description = network === 'mainnet' ? 'Mainnet: real TRX and USDT.' : 'Nile test network: its own accounts, keys and secrets.';
  if (origin) return { url: origin.replace(/\/+$/, ''), description };
  const variable = `${network}_origin`;
  return { url: `{${variable}}`, description, variables: { [variable]: { default: `https://${network}.api.example`, description: 'The deployment\'s origin, without /v1.' } } };
}

/** Every tag an operation uses, described (a test holds the two lists equal). */
const TAGS: NonNullable<OpenApiDocument['tags']> = [
  { name: 'operations', description: 'Liveness, readiness, metrics and this document.' },
  { name: 'signup', description: 'Address challenge, bootstrap token, account creation: how an account and its first API key come to be.' },
  { name: 'session', description: 'Dashboard sessions (cookie and CSRF token) and members.' },
  { name: 'api-keys', description: 'API keys: issued once with their secret, listed without, revoked at once.' },
  { name: 'address-book', description: 'Saved receiver addresses of the account.' },
  { name: 'account', description: 'The account, balance, deposit addresses, ledger, address book and order analytics.' },
  { name: 'orders', description: 'Prices, quotes, orders and reclaim.' },
  { name: 'batches', description: 'Many receivers in one request.' },
  { name: 'subscriptions', description: 'Automatic refills and daily plans for watched addresses.' },
  { name: 'webhooks', description: 'Endpoints, test deliveries, the delivery log, and (under `webhooks`) every event the service sends.' },
  { name: 'promo', description: 'The promotional grant and its codes.' },
];

export function buildDocument(origins: PublicOrigins = {}): OpenApiDocument {
  return completeDocument(declareErrorResponses({
    openapi: '3.1.0',
    info: {
      title: 'Energy Rental API',
      version: '1',
      description: [
        'Temporary TRON energy and bandwidth delegations (and one-off address activation), paid from a prepaid balance funded with TRX or USDT.',
        'Requests are signed with an API key (the `apiKey` scheme). Every int64 (`format: int64`, every `*_sun`) may exceed 2^53: parse JSON losslessly.',
        'Errors share one envelope; each operation lists exactly the codes and slugs it can answer, by status. Writes are idempotent by `client_order_id` or `Idempotency-Key`.',
      ].join('\n\n'),
      license: { name: 'Proprietary service; the client package is MIT', identifier: 'LicenseRef-Proprietary' },
      contact: { name: 'Energy Rental support' },
    },
    // Every path below carries /v1, and a server URL is prefixed to each path: '/' (not '/v1/v1/...').
    servers: [{ url: '/', description: 'The server that served this document.' }, server('mainnet', origins.mainnet), server('nile', origins.nile)],
    tags: TAGS,
    paths: { ...platformPaths, ...identityPaths, ...ledgerPaths, ...webhookPaths, ...orderPaths, ...promoPaths, ...statsPaths, ...batchPaths, ...subscriptionPaths, ...estimatePaths },
    webhooks,
    components: { schemas: { ...sharedSchemas, ...identitySchemas, ...ledgerSchemas, ...webhookSchemas, ...orderSchemas, ...promoSchemas, ...statsSchemas, ...batchSchemas, ...subscriptionSchemas, ...estimateSchemas, ...eventSchemas }, securitySchemes: { ...identitySecuritySchemes } },
  }));
}
