/**
 * Whether a method and path name an operation of the document: what the API checks before it reads a
 * request's body, so a request to a route that does not exist costs no body read or parse.
 */
import type { OpenApiDocument } from './operation';

export type OperationMatcher = (method: string, path: string) => boolean;

export function operationMatcher(doc: Pick<OpenApiDocument, 'paths'>): OperationMatcher {
  const byMethod = new Map<string, RegExp[]>();
  for (const [template, operations] of Object.entries(doc.paths)) {
    // `{name}` is one path segment; everything else is literal.
    const pattern = new RegExp(`^${template.split(/\{[^}]+\}/).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[^/]+')}$`);
    for (const method of Object.keys(operations)) {
      const key = method.toUpperCase();
      byMethod.set(key, [...(byMethod.get(key) ?? []), pattern]);
    }
  }
  return (method, path) => {
    const key = method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase();
    return (byMethod.get(key) ?? []).some((pattern) => pattern.test(path));
  };
}
