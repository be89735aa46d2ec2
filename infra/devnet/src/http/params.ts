import type { Request, Response } from 'express';
import { toJson } from './json';

export type Params = Record<string, unknown>;

/**
 * java-tron servlets take their arguments from the JSON body (POST) or the query string (GET),
 * whatever the content type; query values arrive as strings.
 */
export function paramsOf(req: Request): Params {
  return paramsFrom(req.query, req.body);
}

/** The parameters of a query (parsed) and a body (text, or undefined when none came). */
export function paramsFrom(queryValues: Record<string, unknown>, bodyText: unknown): Params {
  const body = typeof bodyText === 'string' && bodyText.trim() !== '' ? JSON.parse(bodyText) : {};
  const query: Params = {};
  for (const [k, v] of Object.entries(queryValues)) query[k] = v;
  return { ...query, ...(typeof body === 'object' && body !== null ? body : {}) };
}

export const isVisible = (p: Params) => p.visible === true || p.visible === 'true';

const int64AsString = (p: Params) => p.int64_as_string === true || p.int64_as_string === 'true';

/** The answer's text: int64 fields as the client asked (int64_as_string). */
export function jsonText(params: Params, value: unknown): string {
  return toJson(value, int64AsString(params));
}

export function sendJson(res: Response, params: Params, value: unknown, status = 200): void {
  res.status(status).type('application/json').send(jsonText(params, value));
}

/** java-tron's servlet error shape: HTTP 200 with {"Error": "<exception class> : <message>"}. */
export function sendError(res: Response, message: string): void {
  res.status(200).type('application/json').send(JSON.stringify({ Error: message }));
}
