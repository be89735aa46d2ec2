import http from 'node:http';
import express, { type NextFunction, type Request, type Response } from 'express';
import { FormatError } from '../tx/json-values';
import { log } from '../log';
import type { DevnetNode } from '../node';
import { BROADCAST_PATH, broadcastHandler } from './broadcast';
import { adminRoutes } from './routes-admin';
import { assetRoutes } from './routes-assets';
import { accountRoutes } from './routes-accounts';
import { blockRoutes } from './routes-blocks';
import { contractRoutes } from './routes-contracts';
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
    if (/^\/wallet(solidity)?\//.test(req.path) && node.faults.readsFailing(Date.now())) {
      res.status(503).json({ Error: 'devnet fault: reads unavailable' });
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
  contractRoutes(router, node);
  adminRoutes(router, node);
  assetRoutes(router, node);
  app.use(router);

  app.use((req: Request, res: Response) => {
    res.status(404).json({ Error: `devnet does not serve ${req.method} ${req.path}` });
  });
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    if (err instanceof FormatError || err instanceof SyntaxError) {
      if (req.path.startsWith('/admin/')) res.status(400).json({ error: err.message });
      else res.status(200).json({ Error: `class java.lang.IllegalArgumentException : ${err.message}` });
      return;
    }
    log('error', 'request failed', { path: req.path, error: err instanceof Error ? err.stack : String(err) });
    res.status(500).json({ Error: err instanceof Error ? err.message : String(err) });
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
