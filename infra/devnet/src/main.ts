import fs from 'node:fs';
import { ConfigError, loadConfig } from './config';
import { toBase58 } from './crypto/address';
import { createServer } from './http/server';
import { log } from './log';
import { DevnetNode } from './node';

/**
 * Entry point: `main.js [--reset] [--exit-with-parent]`. --reset wipes DEVNET_DATA_DIR first;
 * --exit-with-parent (for test harnesses) stops the devnet when the process that started it dies.
 */
function main(): void {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`devnet: invalid configuration: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  if (process.argv.includes('--reset')) fs.rmSync(config.dataDir, { recursive: true, force: true });

  const node = new DevnetNode(config);
  const server = createServer(node).listen(config.port, config.host, () => {
    node.startProducing();
    const a = node.accounts;
    const wallet = (k: { address: string; privateKey: string }) => ({ address: toBase58(k.address), private_key: k.privateKey });
    // The one place keys are logged: a devnet's genesis listing, for people driving it by hand.
    log('info', 'genesis accounts', {
      faucet: wallet(a.faucet),
      customers: a.customers.map(wallet),
      pool: a.pool.map(wallet),
      usdt_contract: toBase58(a.usdt),
      dex_pool: toBase58(a.dexPool),
    });
    log('info', 'devnet listening', { url: `http://${config.host}:${config.port}`, blockMs: config.blockMs, solidifyDepth: config.solidifyDepth, head: node.chain.head().number });
  });
  server.keepAliveTimeout = 65_000;
  server.on('error', (err) => {
    log('error', 'cannot listen', { port: config.port, error: err.message });
    process.exit(1);
  });

  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    log('info', 'shutting down', { signal });
    server.close();
    server.closeAllConnections();
    node.close().finally(() => process.exit(0));
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  if (process.argv.includes('--exit-with-parent')) {
    const parent = process.ppid;
    setInterval(() => process.ppid !== parent && shutdown('parent exited'), 1_000).unref();
  }
  // Nobody is reading the log any more (the parent went away): stop rather than spin on EPIPE.
  process.stdout.on('error', () => shutdown('stdout closed'));
}

main();
