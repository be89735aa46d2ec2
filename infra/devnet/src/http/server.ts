import http from 'node:http';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { DevnetNode } from '../node';
import { BROADCAST_PATH, broadcastHandler } from './broadcast';
import { failureAnswer, isBadInput, READS_FAILING } from './failures';
import { adminRoutes } from './routes-admin';
import { assetRoutes } from './routes-assets';
import { accountRoutes } from './routes-accounts';
import { blockRoutes } from './routes-blocks';
import { contractRoutes } from './routes-contracts';
import { jsonRpcRoutes } from './routes-jsonrpc';
import { readHandler, type Reads } from './reads';
import { transactionRoutes } from './routes-transactions';

export function createApp(node: DevnetNode, reads: Reads): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  // java-tron reads the body as JSON whatever the content type says.
  app.use(express.text({ type: () => true, limit: '2mb' }));

  // fail_reads_ms fault: every node read answers 503 while it lasts; broadcasts still work.
  app.use((req: Request, res: Response, next: NextFunction) => {
    if (/^\/(wallet(solidity)?\/|jsonrpc$)/.test(req.path) && node.faults.readsFailing(Date.now())) {
      res.status(503).json(READS_FAILING);
      return;
    }
    next();
  });

  const router = express.Router();
  for (const solidity of [false, true]) {
    blockRoutes(router, reads, node, solidity);
    accountRoutes(router, reads, node, solidity);
  }
  transactionRoutes(router, reads, node);
  contractRoutes(router, reads, node);
  jsonRpcRoutes(router, node);
  adminRoutes(router, node);
  assetRoutes(router, node);
  app.use(router);

  app.use((req: Request, res: Response) => {
    res.status(404).json({ Error: `devnet does not serve ${req.method} ${req.path}` });
  });
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    if (isBadInput(err) && req.path.startsWith('/admin/')) {
      res.status(400).json({ error: err.message });
      return;
    }
    const { status, body } = failureAnswer(err, req.path);
    res.status(status).json(body);
  });
  return app;
}

/** The HTTP server: broadcasts and node reads on their own fast paths, everything else through express. */
export function createServer(node: DevnetNode): http.Server {
  const reads: Reads = new Map();
  const app = createApp(node, reads);
  const broadcast = broadcastHandler(node);
  const read = readHandler(node, reads);
  return http.createServer((req, res) => {
    if (req.method === 'POST' && req.url === BROADCAST_PATH) broadcast(req, res);
    else if (!read(req, res)) app(req, res);
  });
}
