import { log } from '../log';
import { FormatError } from '../tx/json-values';

/** What every node read answers, with HTTP 503, while the fail_reads_ms fault lasts (broadcasts still work). */
export const READS_FAILING = { Error: 'devnet fault: reads unavailable' };

/** Whether `err` is a request's own fault (a malformed parameter or body), not the node's. */
export const isBadInput = (err: unknown): err is Error => err instanceof FormatError || err instanceof SyntaxError;

/**
 * A node request that threw, as java-tron answers it: bad input is HTTP 200 with the servlet's
 * IllegalArgumentException; anything else is logged and answered 500. Express's error handler and the read
 * fast path (reads.ts) both answer with this, so the two paths stay byte for byte the same.
 */
export function failureAnswer(err: unknown, path: string): { status: number; body: { Error: string } } {
  if (isBadInput(err)) return { status: 200, body: { Error: `class java.lang.IllegalArgumentException : ${err.message}` } };
  log('error', 'request failed', { path, error: err instanceof Error ? err.stack : String(err) });
  return { status: 500, body: { Error: err instanceof Error ? err.message : String(err) } };
}
