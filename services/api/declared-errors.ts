/**
 * Whether an error answer is among the codes its operation declares (services/api/openapi/operation-errors.ts).
 * The answer goes out as it is either way; one outside the table is a defect of the document (a generated
 * client was told the operation never sends it): logged, counted in `api_undeclared_errors_total`, and kept
 * in this process's list, which every integration test file with an in-process API checks is empty
 * (test/support/declared-errors-check.ts).
 */
import type { Request } from 'express';
import type { ErrorSlug } from '../domain/errors';
import { logger } from '../platform/logger';
import { undeclaredErrors } from '../platform/metrics';
import { declaredErrors } from './openapi/operation-errors';
import { operationAt } from './openapi/operation-paths';
import type { OpenApiDocument } from './openapi/operation';

export interface UndeclaredAnswer {
  operationId: string;
  method: string;
  path: string;
  slug: ErrorSlug;
}

export type DeclaredErrorCheck = (req: Pick<Request, 'method' | 'path'>, slug: ErrorSlug) => void;

const seen: UndeclaredAnswer[] = [];

/** The undeclared answers this process sent (at most the first 100). */
export function undeclaredAnswers(): readonly UndeclaredAnswer[] {
  return seen;
}

export function declaredErrorCheck(doc: Pick<OpenApiDocument, 'paths'>): DeclaredErrorCheck {
  const find = operationAt(doc);
  const declared = new Map<string, Set<ErrorSlug>>();
  return (req, slug) => {
    // A path no operation has (the 404 of an unknown route) declares nothing to hold it to.
    const op = find(req.method, req.path);
    if (!op) return;
    let codes = declared.get(op.operationId);
    if (!codes) {
      codes = new Set(declaredErrors(op.operationId, op.security, op.method) ?? []);
      declared.set(op.operationId, codes);
    }
    if (codes.has(slug)) return;
    undeclaredErrors.inc({ operation: op.operationId, slug });
    logger.error({ operation: op.operationId, slug, method: req.method, path: req.path }, 'error answer not declared for this operation (services/api/openapi/operation-errors.ts)');
    if (seen.length < 100) seen.push({ operationId: op.operationId, method: req.method, path: req.path, slug });
  };
}
