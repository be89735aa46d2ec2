/** The shapes of the OpenAPI document and of one operation in it, which every `*-paths.ts` declares. */
export type OpenApiDocument = {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string; license?: { name: string; identifier?: string; url?: string }; contact?: { name: string; url?: string } };
  servers: Array<{ url: string; description: string; variables?: Record<string, { default: string; description: string }> }>;
  tags?: Array<{ name: string; description: string }>;
  paths: Record<string, Record<string, Operation>>;
  webhooks?: Record<string, Record<string, unknown>>;
  components: { schemas: Record<string, unknown>; securitySchemes?: Record<string, unknown> };
};

export interface Operation {
  operationId: string;
  summary: string;
  /** Filled in by completeDocument (examples.ts) when not written here. */
  description?: string;
  tags?: string[];
  security?: Array<Record<string, string[]>>;
  parameters?: Array<{ name: string; in: 'query' | 'path' | 'header'; required?: boolean; schema: unknown; description?: string }>;
  requestBody?: { required?: boolean; content: { 'application/json': { schema: unknown; example?: unknown } } };
  responses: Record<string, { description: string; content?: Record<string, { schema: unknown; example?: unknown }> }>;
}
