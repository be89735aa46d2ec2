import type { IncomingMessage } from 'node:http';

/** The largest body the node takes (express.text's limit on the other routes). */
export const MAX_BODY_BYTES = 2 * 1024 * 1024;

/** Collects a request's body for the fast paths; past MAX_BODY_BYTES the connection is dropped. */
export function readBody(req: IncomingMessage, done: (body: Buffer) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  req.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) req.destroy();
    else chunks.push(chunk);
  });
  req.on('end', () => done(Buffer.concat(chunks)));
}
