import type { Operation } from './operation';
import { errorResponse } from './shared-schemas';

const plain = (description: string) => ({ description, content: { 'text/plain': { schema: { type: 'string' } } } });

export const platformPaths: Record<string, Record<string, Operation>> = {
  '/healthz': {
    get: { operationId: 'healthz', summary: 'Liveness: the process answers.', tags: ['operations'], responses: { '200': plain('alive') } },
  },
  '/readyz': {
    get: {
      operationId: 'readyz',
      summary: 'Readiness: Kafka, the schema registry, PostgreSQL and Redis answer.',
      tags: ['operations'],
      responses: {
        '200': { description: 'ready', content: { 'application/json': { schema: { type: 'object' } } } },
        '503': { description: 'a dependency is down', content: { 'application/json': { schema: { type: 'object' } } } },
      },
    },
  },
  '/metrics': {
    get: { operationId: 'metrics', summary: 'Prometheus metrics, including consumer lag per partition.', tags: ['operations'], responses: { '200': plain('metrics') } },
  },
  '/v1/openapi.json': {
    get: {
      operationId: 'openapi',
      summary: 'This document.',
      tags: ['operations'],
      responses: { '200': { description: 'OpenAPI 3.1', content: { 'application/json': { schema: { type: 'object' } } } }, '500': errorResponse('fault') },
    },
  },
};
