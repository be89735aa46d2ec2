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

export type OpenApiDocument = {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string };
  servers: Array<{ url: string; description: string; variables?: Record<string, { default: string; description: string }> }>;
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown>; securitySchemes?: Record<string, unknown> };
};

export interface Operation {
  operationId: string;
  summary: string;
  tags?: string[];
  security?: Array<Record<string, string[]>>;
  parameters?: Array<{ name: string; in: 'query' | 'path' | 'header'; required?: boolean; schema: unknown; description?: string }>;
  requestBody?: { required?: boolean; content: { 'application/json': { schema: unknown } } };
  responses: Record<string, { description: string; content?: Record<string, { schema: unknown }> }>;
}

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

export function buildDocument(origins: PublicOrigins = {}): OpenApiDocument {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Energy Rental API',
      version: '1',
      description: 'Temporary TRON energy and bandwidth delegations paid from a prepaid balance.',
    },
    // Every path below carries /v1, and a server URL is prefixed to each path: '/' (not '/v1/v1/...').
    servers: [{ url: '/', description: 'The server that served this document.' }, server('mainnet', origins.mainnet), server('nile', origins.nile)],
    paths: { ...platformPaths, ...identityPaths, ...ledgerPaths, ...webhookPaths, ...orderPaths, ...promoPaths, ...statsPaths, ...batchPaths, ...subscriptionPaths },
    components: { schemas: { ...sharedSchemas, ...identitySchemas, ...ledgerSchemas, ...webhookSchemas, ...orderSchemas, ...promoSchemas, ...statsSchemas, ...batchSchemas, ...subscriptionSchemas }, securitySchemes: { ...identitySecuritySchemes } },
  };
}
