/**
 * Whether a method and path name an operation of the document: what the API checks before it reads a
 * request's body, so a request to a route that does not exist costs no body read or parse. `operationAt`
 * names that operation (what the check of declared error codes needs, services/api/declared-errors.ts).
 */
import type { OpenApiDocument, Operation } from './operation';

export type OperationMatcher = (method: string, path: string) => boolean;
export type OperationFinder = (method: string, path: string) => (Operation & { method: string }) | undefined;

export function operationAt(doc: Pick<OpenApiDocument, 'paths'>): OperationFinder {
  const byMethod = new Map<string, Array<{ pattern: RegExp; op: Operation & { method: string } }>>();
  // A literal path before a templated one that also matches it (`/v1/session/history` before a `/v1/session/{id}`).
  const templates = Object.entries(doc.paths).sort(([a], [b]) => (a.split('{').length - b.split('{').length));
  for (const [template, operations] of templates) {
    // `{name}` is one path segment; everything else is literal.
    const pattern = new RegExp(`^${template.split(/\{[^}]+\}/).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[^/]+')}$`);
    for (const [method, op] of Object.entries(operations)) {
      const key = method.toUpperCase();
      byMethod.set(key, [...(byMethod.get(key) ?? []), { pattern, op: { ...op, method } }]);
    }
  }
  return (method, path) => {
    const key = method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase();
    return (byMethod.get(key) ?? []).find((entry) => entry.pattern.test(path))?.op;
  };
}

export function operationMatcher(doc: Pick<OpenApiDocument, 'paths'>): OperationMatcher {
  const find = operationAt(doc);
  return (method, path) => find(method, path) !== undefined;
}
