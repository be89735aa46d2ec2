import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { TronWeb } from 'tronweb';
import { entryArgs } from '../support/built-entry';

export interface Wallet {
  address: string;
  private_key: string;
}

export interface DevnetAccounts {
  faucet: Wallet;
  customers: Wallet[];
  pool: Wallet[];
  usdt_contract: string;
  dex_pool: string;
  /** The batch-payout contract that forwards TRX and calls a token's transfer. */
  forwarder_contract: string;
}

export interface Devnet {
  url: string;
  dataDir: string;
  accounts: DevnetAccounts;
  /** POSTs JSON to the devnet and returns the parsed answer. */
  post<T = any>(path: string, body?: unknown): Promise<T>;
  /** SIGSTOP / SIGCONT of the devnet process: it keeps its connections but answers nothing (outage tests). */
  freeze(): void;
  thaw(): void;
  stop(): Promise<void>;
  /** SIGKILL, as a crash: no shutdown snapshot; resolves once the process is gone. */
  kill(): Promise<void>;
  /** The devnet process (a benchmark lowers its priority: it stands in for the remote chain). */
  pid: number | undefined;
}

const ROOT = path.resolve(__dirname, '../..');

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/**
 * Starts the devnet as its own process on a free port with a temporary data dir (or the one
 * given, to test restarts), and waits until GET /admin/accounts answers.
 */
export async function startDevnet(env: Record<string, string> = {}, dataDir?: string): Promise<Devnet> {
  const port = await freePort();
  const dir = dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'devnet-test-'));
  const child: ChildProcess = spawn(process.execPath, [...entryArgs('infra/devnet/src/main.ts', ['infra/devnet/src'], ['--require', 'tsx/cjs']), '--exit-with-parent'], {
    cwd: ROOT,
    env: { ...process.env, DEVNET_PORT: String(port), DEVNET_DATA_DIR: dir, DEVNET_BLOCK_MS: '200', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (d) => (output += d));
  child.stderr?.on('data', (d) => (output += d));
  const url = `http://127.0.0.1:${port}`;

  const post = async (p: string, body: unknown = {}) => {
    const res = await fetch(url + p, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return res.json() as Promise<any>;
  };
  const deadline = Date.now() + 30_000;
  let accounts: DevnetAccounts | undefined;
  while (!accounts) {
    if (child.exitCode !== null) throw new Error(`devnet exited early:\n${output}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`devnet did not answer in time:\n${output}`);
    }
    try {
      const res = await fetch(url + '/admin/accounts');
      if (res.ok) accounts = (await res.json()) as DevnetAccounts;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  const gone = () => child.exitCode !== null || child.signalCode !== null;
  const stop = async () => {
    if (gone()) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  };
  const kill = async () => {
    if (gone()) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
  };
  return { url, dataDir: dir, accounts, post, freeze: () => child.kill('SIGSTOP'), thaw: () => child.kill('SIGCONT'), stop, kill, pid: child.pid };
}

/** A devnet for one test file and a TronWeb client that signs as its faucet. */
export async function startDevnetWithFaucetClient(): Promise<{ devnet: Devnet; tronWeb: TronWeb }> {
  const devnet = await startDevnet();
  return { devnet, tronWeb: new TronWeb({ fullHost: devnet.url, privateKey: devnet.accounts.faucet.private_key }) };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls until `probe` returns a truthy value (or fails after `timeoutMs`). */
export async function eventually<T>(probe: () => Promise<T | undefined | null | false>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(100);
  }
}

/** TronWeb's getTransactionInfo once it answers, i.e. once the transaction's block is solidified. */
export async function solidifiedInfo(tronWeb: TronWeb, txid: string): Promise<any> {
  return eventually(async () => {
    const info: any = await tronWeb.trx.getTransactionInfo(txid);
    return Object.keys(info).length ? info : undefined;
  });
}
