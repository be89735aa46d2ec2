/**
 * Real HTTPS webhook receivers on loopback for the webhook tests, with a test CA made here by the
 * openssl CLI (EC P-256, one day). The dispatcher trusts it through its `ca` option in-process, or
 * through NODE_EXTRA_CA_CERTS in a child process.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

export interface TestCa {
  caPath: string;
  ca: Buffer;
  key: Buffer;
  cert: Buffer;
}

let cached: TestCa | undefined;

export function testCa(): TestCa {
  if (cached) return cached;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'webhook-ca-'));
  const run = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  run('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'ca.key');
  run('req', '-x509', '-new', '-key', 'ca.key', '-subj', '/CN=webhook test CA', '-days', '1', '-out', 'ca.pem',
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign');
  run('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'server.key');
  run('req', '-new', '-key', 'server.key', '-subj', '/CN=localhost', '-out', 'server.csr');
  writeFileSync(path.join(dir, 'ext.cnf'), 'subjectAltName=DNS:localhost,DNS:receiver.test,IP:127.0.0.1,IP:::1\nextendedKeyUsage=serverAuth\n');
  run('x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '1', '-out', 'server.pem', '-extfile', 'ext.cnf');
  cached = {
    caPath: path.join(dir, 'ca.pem'),
    ca: readFileSync(path.join(dir, 'ca.pem')),
    key: readFileSync(path.join(dir, 'server.key')),
    cert: readFileSync(path.join(dir, 'server.pem')),
  };
  return cached;
}

export interface ReceivedRequest {
  headers: Record<string, string>;
  raw: Buffer;
  path: string;
  at: number;
}

export interface Answer {
  status: number;
  /** Real milliseconds to wait before answering. */
  delayMs?: number;
  body?: string;
}

export interface Receiver {
  url: string;
  port: number;
  requests: ReceivedRequest[];
  /** Decides each answer; `n` counts this receiver's requests from 1. */
  answer: (req: ReceivedRequest, n: number) => Answer;
  close(): Promise<void>;
}

export async function startReceiver(answer: Receiver['answer'] = () => ({ status: 200 })): Promise<Receiver> {
  const { key, cert } = testCa();
  const requests: ReceivedRequest[] = [];
  const receiver = { requests, answer } as Receiver;
  const server = https.createServer({ key, cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const received: ReceivedRequest = {
        headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)])),
        raw: Buffer.concat(chunks),
        path: req.url ?? '',
        at: Date.now(),
      };
      requests.push(received);
      const a = receiver.answer(received, requests.length);
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(a.status, { 'Content-Type': 'text/plain' });
        res.end(a.body ?? 'ok');
      };
      if (a.delayMs) setTimeout(send, a.delayMs);
      else send();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  receiver.port = port;
  receiver.url = `https://127.0.0.1:${port}/hooks`;
  receiver.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}

/** A URL on loopback where nothing listens: connections are refused. */
export async function downUrl(): Promise<string> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return `https://127.0.0.1:${port}/down`;
}
