/**
 * The bare ceiling of bench/orders.ts: per request only the API-key signature check and ONE PostgreSQL
 * insert, in CEILING_WORKERS processes sharing CEILING_PORT (node cluster), like the service's API.
 * Started by bench/orders.ts; the table bench_ceiling is created there.
 */
import cluster from 'node:cluster';
import express from 'express';
import { signatureMatches, signRequest, timestampInWindow } from '../services/identity/request-signing';
import { createPool } from '../services/platform/db/pool';

const port = Number(process.env.CEILING_PORT);
const workers = Number(process.env.CEILING_WORKERS ?? 1);
const secret = String(process.env.CEILING_SECRET);

if (cluster.isPrimary && workers > 1) {
  for (let i = 0; i < workers; i++) cluster.fork();
  // Exit once every worker has: a primary leaving first breaks their IPC channel (EPIPE in the worker).
  process.on('SIGTERM', () => {
    cluster.on('exit', () => {
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
    });
    for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGTERM');
  });
} else {
  const pool = createPool(String(process.env.DATABASE_URL), Number(process.env.DATABASE_POOL_MAX ?? 8));
  const app = express();
  app.get('/ready', (_req, res) => void res.status(200).end());
  app.post('/v1/orders', express.raw({ type: '*/*' }), async (req, res) => {
    const ts = String(req.header('x-api-timestamp'));
    const expected = signRequest(secret, ts, 'POST', '/v1/orders', req.body as Buffer);
    if (!timestampInWindow(ts, Date.now()) || !signatureMatches(expected, String(req.header('x-api-sign')))) {
      res.status(401).json({ error: 'signature' });
      return;
    }
    const body = JSON.parse((req.body as Buffer).toString('utf8'));
    try {
      await pool.query('INSERT INTO bench_ceiling (id, body) VALUES ($1, $2)', [body.client_order_id, body]);
    } catch {
      // The pool ended under a request still in flight at the benchmark's SIGTERM: an answer, not a stack on stderr.
      res.status(503).json({ error: 'unavailable' });
      return;
    }
    res.status(201).json({ id: body.client_order_id });
  });
  app.listen(port, '127.0.0.1');
  process.on('SIGTERM', () => void pool.end().finally(() => process.exit(0)));
}
