/**
 * Writes to a streamed answer at the reader's pace: when the socket's buffer is full, waits for it to
 * drain before the next chunk, so a slow reader makes the service read slower instead of buffering the
 * whole answer. Answers false when the client went away (stop reading from the database then).
 */
import type { Response } from 'express';

export async function writePaced(res: Response, chunk: string): Promise<boolean> {
  if (res.destroyed || res.writableEnded) return false;
  if (res.write(chunk)) return true;
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      res.off('drain', onDrain);
      res.off('close', onClose);
      resolve(ok);
    };
    const onDrain = () => done(true);
    const onClose = () => done(false);
    res.on('drain', onDrain);
    res.on('close', onClose);
  });
}
