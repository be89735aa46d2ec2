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
import type { OpenApiDocument } from './operation';

export function buildDocument(): OpenApiDocument {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Energy Rental API',
      version: '1',
      description: 'Temporary TRON energy and bandwidth delegations paid from a prepaid balance.',
    },
    // Every path below carries /v1, and a server URL is prefixed to each path: '/' (not '/v1/v1/...').
    servers: [{ url: '/' }],
    paths: { ...platformPaths, ...identityPaths, ...ledgerPaths, ...webhookPaths, ...orderPaths, ...promoPaths, ...statsPaths, ...batchPaths, ...subscriptionPaths, ...estimatePaths },
    components: { schemas: { ...sharedSchemas, ...identitySchemas, ...ledgerSchemas, ...webhookSchemas, ...orderSchemas, ...promoSchemas, ...statsSchemas, ...batchSchemas, ...subscriptionSchemas, ...estimateSchemas }, securitySchemes: { ...identitySecuritySchemes } },
  };
}
