/**
 * The naive monolith of bench/orders.ts (issue 34's anchor): what a rental service looks like written the
 * obvious way, per request and with no log. node:http in MONOLITH_WORKERS processes sharing MONOLITH_PORT
 * (node cluster, as many as the service's API workers); per POST /v1/orders:
 *   1. the API-key signature check (as the service and the ceiling do);
 *   2. ONE PostgreSQL transaction that charges the account's balance and stores the order;
 *   3. TronWeb builds the delegation (a node call: /wallet/delegateresource), signs it and broadcasts it
 *      (/wallet/broadcasttransaction) from the process's pool account;
 *   4. answers 201 with the delegation's txid (502 when the node refused it: nothing is undone, as naive
 *      code does not).
 * No outbox, no retries, no reconciliation, no log line: the cost floor of doing the work inline, against
 * which the pipeline's batching is measured. Started by bench/orders.ts, which creates its tables.
 *
 * Settings: MONOLITH_PORT, MONOLITH_WORKERS, MONOLITH_SECRET (the API key's secret), MONOLITH_POOL_KEYS
 * (comma-separated private keys: worker i signs with key i mod n), MONOLITH_SUN_PER_UNIT (stake per unit of
 * energy delegated), MONOLITH_PRICE_SUN (price per unit charged), DATABASE_URL, TRON_FULL_HOST.
 */
import cluster from 'node:cluster';
import http from 'node:http';
import { TronWeb } from 'tronweb';
import { signatureMatches, signRequest, timestampInWindow } from '../services/identity/request-signing';
import { createPool } from '../services/platform/db/pool';

const port = Number(process.env.MONOLITH_PORT);
const workers = Number(process.env.MONOLITH_WORKERS ?? 1);
const secret = String(process.env.MONOLITH_SECRET);
const poolKeys = String(process.env.MONOLITH_POOL_KEYS).split(',');
const sunPerUnit = BigInt(process.env.MONOLITH_SUN_PER_UNIT ?? '100');
const priceSun = BigInt(process.env.MONOLITH_PRICE_SUN ?? '60');

/** The monolith's tables, created by the bench before it starts the servers. */
export const monolithTables = [
  'CREATE TABLE bench_monolith_accounts (id text PRIMARY KEY, balance_sun bigint NOT NULL CHECK (balance_sun >= 0))',
  'CREATE TABLE bench_monolith_orders (id text PRIMARY KEY, account_id text NOT NULL, receiver text NOT NULL, amount bigint NOT NULL, price_sun bigint NOT NULL, created_at timestamptz NOT NULL DEFAULT now())',
];
export const monolithAccount = 'bench-monolith';

function readBody(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function answer(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** The first failures of each process on stderr (the bench prints only counts): why answers were not 201. */
let failuresReported = 0;
function reportFailure(why: string): void {
  if (failuresReported++ < 3) console.error(`naive monolith (pid ${process.pid}): ${why}`);
}

function serve(workerIndex: number): void {
  const pool = createPool(String(process.env.DATABASE_URL), Number(process.env.DATABASE_POOL_MAX ?? 8));
  const tronWeb = new TronWeb({ fullHost: String(process.env.TRON_FULL_HOST), privateKey: poolKeys[workerIndex % poolKeys.length] });
  const owner = tronWeb.defaultAddress.base58 as string;
  let distinct = 0;

  const placeOrder = async (raw: Buffer, ts: string, sign: string): Promise<[number, unknown]> => {
    if (!timestampInWindow(ts, Date.now()) || !signatureMatches(signRequest(secret, ts, 'POST', '/v1/orders', raw), sign)) return [401, { error: 'signature' }];
    const body = JSON.parse(raw.toString('utf8')) as { receiver: string; amount: number; client_order_id: string };
    const amount = BigInt(body.amount);
    const price = amount * priceSun;
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const charged = await client.query('UPDATE bench_monolith_accounts SET balance_sun = balance_sun - $2 WHERE id = $1 AND balance_sun >= $2', [monolithAccount, price]);
      if (charged.rowCount !== 1) {
        await client.query('ROLLBACK');
        return [409, { error: 'insufficient_balance' }];
      }
      await client.query('INSERT INTO bench_monolith_orders (id, account_id, receiver, amount, price_sun) VALUES ($1, $2, $3, $4, $5)',
        [body.client_order_id, monolithAccount, body.receiver, amount, price]);
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
    // The devnet stamps a built transaction with its block's time, so the same delegation twice in one block
    // would be one txid (DUP_TRANSACTION_ERROR); java-tron stamps the millisecond. A few SUN more stake per
    // order keeps each transaction distinct, as the millisecond does on a real node.
    const unsigned = await tronWeb.transactionBuilder.delegateResource(Number(amount * sunPerUnit) + (distinct++ % 1_000_000), body.receiver, 'ENERGY', owner);
    const sent = await tronWeb.trx.sendRawTransaction(await tronWeb.trx.sign(unsigned));
    if (!sent.result) {
      reportFailure(`broadcast refused: ${JSON.stringify(sent)}`);
      return [502, { error: 'broadcast_refused' }];
    }
    return [201, { id: body.client_order_id, status: 'active', delegate_hash: unsigned.txID }];
  };

  const server = http.createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/ready') return answer(res, 200, { ok: true });
    if (req.method !== 'POST' || req.url !== '/v1/orders') return answer(res, 404, { error: 'not_found' });
    readBody(req)
      .then((raw) => placeOrder(raw, String(req.headers['x-api-timestamp']), String(req.headers['x-api-sign'])))
      .then(([status, body]) => answer(res, status, body), (err: Error) => {
        reportFailure(err.message);
        answer(res, 503, { error: 'unavailable' });
      });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(port, '127.0.0.1');
  process.on('SIGTERM', () => void pool.end().finally(() => process.exit(0)));
}

if (require.main === module) {
  if (cluster.isPrimary && workers > 1) {
    for (let i = 0; i < workers; i++) cluster.fork({ MONOLITH_WORKER_INDEX: String(i) });
    process.on('SIGTERM', () => {
      cluster.on('exit', () => {
        if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
      });
      for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGTERM');
    });
  } else {
    serve(Number(process.env.MONOLITH_WORKER_INDEX ?? 0));
  }
}
