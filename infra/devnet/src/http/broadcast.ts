import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DevnetNode } from '../node';
import { FormatError } from '../tx/json-values';
import { parseSignedTx } from '../tx/transaction';
import { readBody } from './body';

export const BROADCAST_PATH = '/wallet/broadcasttransaction';

function answer(res: ServerResponse, body: unknown): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/**
 * POST /wallet/broadcasttransaction, served straight off node:http instead of through express:
 * it is the path load goes through (thousands of calls a second), and express's per-request
 * machinery cost about as much as everything else the node does for a transaction.
 */
export function broadcastHandler(node: DevnetNode) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    readBody(req, (body) => {
      let tx;
      try {
        tx = parseSignedTx(JSON.parse(body.toString('utf8')));
      } catch (err) {
        if (!(err instanceof FormatError || err instanceof SyntaxError)) throw err;
        return answer(res, { Error: `class java.lang.IllegalArgumentException : ${err.message}` });
      }
      node.admission.broadcast(tx).then(
        (result) => answer(res, result),
        (err: unknown) => {
          res.writeHead(500, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ Error: err instanceof Error ? err.message : String(err) }));
        },
      );
    });
  };
}
