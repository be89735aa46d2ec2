/** The shapes of the OpenAPI document and of one operation in it, which every `*-paths.ts` declares. */
export type OpenApiDocument = {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string };
  servers: Array<{ url: string }>;
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
