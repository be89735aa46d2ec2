/**
 * Devnet throughput: how many signed TRX transfers per second the devnet accepts over HTTP
 * (POST /wallet/broadcasttransaction) and how fast they end up in blocks.
 *
 *   npx tsx bench/devnet-throughput.ts [--txs 6000] [--runs 3] [--concurrency 64] [--url http://…]
 *
 * Without --url it starts its own devnet (temp data dir, DEVNET_CUSTOMERS=40 senders). Transactions
 * are built and signed with TronWeb before the clock starts, so only the node is measured.
 * Prints one JSON line per run and a summary with the medians.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { TronWeb, utils } from 'tronweb';
import { median } from './figures';

const args = process.argv.slice(2);
const option = (name: string, fallback: string) => {
  const i = args.indexOf('--' + name);
  return i >= 0 && args[i + 1] ? args[i + 1] : fallback;
};
const TXS = Number(option('txs', '6000'));
const RUNS = Number(option('runs', '3'));
const CONCURRENCY = Number(option('concurrency', '64'));
const ROOT = path.resolve(__dirname, '..');

interface Wallet {
  address: string;
  private_key: string;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });

function request(url: string, method: 'GET' | 'POST', body?: string): Promise<any> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, agent, headers: body ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } : {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        try {
          resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        } catch (err) {
          reject(err);
        }
      });
    });
    req.on('error', reject);
    if (body) req.write(body);
    req.end();
  });
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

async function startDevnet(): Promise<{ url: string; stop: () => void }> {
  const port = await freePort();
  const built = path.join(ROOT, 'dist/infra/devnet/src/main.js');
  const entry = fs.existsSync(built) ? [built] : ['--require', 'tsx/cjs', path.join(ROOT, 'infra/devnet/src/main.ts')];
  const child = spawn(process.execPath, [...entry, '--exit-with-parent'], {
    cwd: ROOT,
    env: { ...process.env, DEVNET_PORT: String(port), DEVNET_DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'devnet-bench-')), DEVNET_CUSTOMERS: '40' },
    stdio: 'ignore',
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 300; i++) {
    try {
      await request(url + '/admin/accounts', 'GET');
      return { url, stop: () => child.kill('SIGTERM') };
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  child.kill('SIGKILL');
  throw new Error('devnet did not start');
}

/** TRX transfers between the senders, each with its own amount so every txid differs. */
async function signedBatch(url: string, senders: Wallet[], count: number, salt: number): Promise<string[]> {
  const tronWeb = new TronWeb({ fullHost: url });
  const head: any = await request(url + '/wallet/getnowblock', 'GET');
  const { number, timestamp } = head.block_header.raw_data;
  const blockHeader = { ref_block_bytes: number.toString(16).slice(-4).padStart(4, '0'), ref_block_hash: head.blockID.slice(16, 32), expiration: timestamp + 600_000, timestamp };
  const bodies: string[] = [];
  for (let i = 0; i < count; i++) {
    const from = senders[i % senders.length];
    const to = senders[(i + 1) % senders.length];
    const tx = await tronWeb.transactionBuilder.sendTrx(to.address, 1 + salt * count + i, from.address, { blockHeader });
    bodies.push(JSON.stringify(utils.crypto.signTransaction(from.private_key, tx)));
  }
  return bodies;
}

async function run(url: string, senders: Wallet[], salt: number) {
  const bodies = await signedBatch(url, senders, TXS, salt);
  const startHead = (await request(url + '/wallet/getnowblock', 'GET')).block_header.raw_data.number;
  const txids = new Set<string>();
  let refused = 0;
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < bodies.length) {
        const answer = await request(url + '/wallet/broadcasttransaction', 'POST', bodies[next++]);
        if (answer.result === true) txids.add(answer.txid);
        else refused++;
      }
    }),
  );
  const acceptedAt = performance.now();

  // Follow the blocks until every accepted transaction is in one.
  let included = 0;
  let lastInclusion = acceptedAt;
  let scanned = startHead;
  while (included < txids.size && performance.now() - acceptedAt < 120_000) {
    const head = (await request(url + '/wallet/getnowblock', 'GET')).block_header.raw_data.number;
    for (let n = scanned + 1; n <= head; n++) {
      const block = await request(url + '/wallet/getblockbynum', 'POST', JSON.stringify({ num: n }));
      const ids = (block.transactions ?? []).map((t: any) => t.txID).filter((id: string) => txids.has(id));
      if (ids.length) {
        included += ids.length;
        lastInclusion = performance.now();
      }
    }
    scanned = head;
    await new Promise((r) => setTimeout(r, 200));
  }
  const seconds = (acceptedAt - started) / 1000;
  return {
    txs: TXS,
    refused,
    accepted_per_s: Math.round(txids.size / seconds),
    included,
    included_per_s: Math.round(included / ((lastInclusion - started) / 1000)),
    blocks: scanned - startHead,
  };
}

async function main(): Promise<void> {
  const external = option('url', '');
  const devnet = external ? { url: external, stop: () => undefined } : await startDevnet();
  try {
    const accounts = await request(devnet.url + '/admin/accounts', 'GET');
    const senders: Wallet[] = [accounts.faucet, ...accounts.customers, ...accounts.pool];
    const results = [];
    for (let i = 0; i < RUNS; i++) {
      const result = await run(devnet.url, senders, Date.now() % 1000 + i);
      console.log(JSON.stringify({ run: i + 1, ...result }));
      results.push(result);
    }
    console.log(
      JSON.stringify({
        summary: 'median',
        runs: RUNS,
        txs_per_run: TXS,
        concurrency: CONCURRENCY,
        accepted_per_s: median(results.map((r) => r.accepted_per_s)),
        included_per_s: median(results.map((r) => r.included_per_s)),
        cpus: os.cpus().length,
      }),
    );
  } finally {
    devnet.stop();
    agent.destroy();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
