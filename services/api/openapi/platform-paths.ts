import type { Operation } from './operation';

const plain = (description: string) => ({ description, content: { 'text/plain': { schema: { type: 'string' } } } });

const DEPENDENCIES = ['kafka', 'schema_registry', 'postgres', 'redis'];
const readiness = {
  type: 'object', additionalProperties: false, required: ['ready', 'checks'],
  properties: {
    ready: { type: 'boolean' },
    checks: { type: 'object', description: 'Per dependency: `ok` or what failed.', additionalProperties: { type: 'string' }, properties: Object.fromEntries(DEPENDENCIES.map((d) => [d, { type: 'string' }])) },
  },
};
const readyExample = (ready: boolean) => ({ ready, checks: Object.fromEntries(DEPENDENCIES.map((d, i) => [d, ready || i > 0 ? 'ok' : 'down: timed out'])) });

export const platformPaths: Record<string, Record<string, Operation>> = {
  '/healthz': {
    get: { operationId: 'healthz', summary: 'Liveness: the process answers.', tags: ['operations'], security: [], responses: { '200': plain('alive') } },
  },
  '/readyz': {
    get: {
      operationId: 'readyz',
      summary: 'Readiness: Kafka, the schema registry, PostgreSQL and Redis answer.',
      tags: ['operations'],
      security: [],
      responses: {
        '200': { description: 'Every dependency answered.', content: { 'application/json': { schema: readiness, example: readyExample(true) } } },
        '503': { description: 'A dependency did not answer within 2 s.', content: { 'application/json': { schema: readiness, example: readyExample(false) } } },
      },
    },
  },
  '/metrics': {
    get: { operationId: 'metrics', summary: 'Prometheus metrics, including consumer lag per partition.', tags: ['operations'], security: [], responses: { '200': plain('metrics') } },
  },
  '/v1/openapi.json': {
    get: {
      operationId: 'openapi',
      summary: 'This document.',
      tags: ['operations'],
      security: [],
      responses: { '200': { description: 'OpenAPI 3.1', content: { 'application/json': { schema: { type: 'object' } } } } },
    },
  },
};
