/**
 * Server-Timing (W3C) on an answer: the stages a route marked, each as the time since the previous mark
 * (the first since the request came in), e.g. `auth;dur=1.2, append;dur=3.0, reply;dur=8.1`. It shows a
 * client, and bench/orders.ts, where an answer's time went (auth, the append, the processor's round trip,
 * the wait for the broadcast) without a profiler. A mark costs one performance.now().
 */
import type { RequestHandler, Response } from 'express';

interface Stages {
  last: number;
  parts: string[];
}

export const stageTiming: RequestHandler = (_req, res, next) => {
  res.locals.stages = { last: performance.now(), parts: [] } satisfies Stages;
  next();
};

/** Ends the stage `name` now. */
export function markStage(res: Response, name: string): void {
  const stages = res.locals.stages as Stages | undefined;
  if (!stages) return;
  const now = performance.now();
  stages.parts.push(`${name};dur=${(now - stages.last).toFixed(1)}`);
  stages.last = now;
}

/** The header's value, or null when no stage was marked (answers of routes that mark nothing carry none). */
export function serverTiming(res: Response): string | null {
  const stages = res.locals.stages as Stages | undefined;
  return stages && stages.parts.length > 0 ? stages.parts.join(', ') : null;
}
