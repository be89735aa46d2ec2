/**
 * The chain adapter's HTTP client for java-tron's HTTP API: JSON POSTs over kept-alive node:http(s)
 * sockets, one client per node URL in a process. TronWeb's provider (axios) built a request pipeline per
 * call and opened a socket per call; the chain roles make thousands of calls a second under load, and that
 * per-call machinery cost more CPU than the answers' parsing. No redirects (java-tron answers in place).
 * Every failure (network error, timeout, non-2xx, unreadable JSON) is thrown as an Error for the caller
 * to turn into ChainUnavailable.
 */
import http from 'node:http';
import https from 'node:https';
import { chainCalls } from '../platform/metrics';

export interface NodeHttpOptions {
  /** Per-call limit: a slow node counts as an unavailable one, never a hung role. */
  timeoutMs: number;
  /** Sockets kept open to the node (calls beyond wait for one). */
  maxSockets?: number;
}

export class NodeHttp {
  private readonly base: URL;
  private readonly agent: http.Agent;
  private readonly transport: typeof http | typeof https;

  constructor(baseUrl: string, private readonly options: NodeHttpOptions) {
    this.base = new URL(baseUrl.replace(/\/+$/, '') + '/');
    this.transport = this.base.protocol === 'https:' ? https : http;
    this.agent = new this.transport.Agent({ keepAlive: true, maxSockets: options.maxSockets ?? 64, maxFreeSockets: 16 });
  }

  /** POSTs `body` (already JSON text) to `path` under the node URL; answers the parsed JSON. Timed per path (chainCalls). */
  post(path: string, body: string): Promise<unknown> {
    const started = performance.now();
    const observe = (outcome: string) => chainCalls.observe({ method: path, outcome }, (performance.now() - started) / 1000);
    return this.send(path, body).then(
      (answer) => (observe('ok'), answer),
      (err: unknown) => {
        observe('error');
        throw err;
      },
    );
  }

  private send(path: string, body: string): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const payload = Buffer.from(body, 'utf8');
      const req = this.transport.request({
        protocol: this.base.protocol,
        hostname: this.base.hostname,
        port: this.base.port,
        path: this.base.pathname + path,
        method: 'POST',
        agent: this.agent,
        headers: { 'content-type': 'application/json', 'content-length': payload.length },
        timeout: this.options.timeoutMs,
      });
      // The socket timeout only fires on idle time: the deadline covers the whole call.
      const deadline = setTimeout(() => req.destroy(new Error(`timeout of ${this.options.timeoutMs} ms exceeded`)), this.options.timeoutMs);
      req.on('timeout', () => req.destroy(new Error(`timeout of ${this.options.timeoutMs} ms exceeded`)));
      req.on('error', (err) => {
        clearTimeout(deadline);
        reject(err);
      });
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', (err) => {
          clearTimeout(deadline);
          reject(err);
        });
        res.on('end', () => {
          clearTimeout(deadline);
          const text = Buffer.concat(chunks).toString('utf8');
          const status = res.statusCode ?? 0;
          if (status < 200 || status >= 300) return reject(new Error(`Request failed with status code ${status}${text ? `: ${text.slice(0, 200)}` : ''}`));
          try {
            resolve(JSON.parse(text));
          } catch {
            reject(new Error(`not JSON: ${text.slice(0, 100)}`));
          }
        });
      });
      req.end(payload);
    });
  }

  /** Closes the kept-alive sockets (tests, shutdown). */
  close(): void {
    this.agent.destroy();
  }
}

const clients = new Map<string, NodeHttp>();

/** The process's client for a node URL (one socket pool per node, shared by every reader and writer). */
export function nodeHttpFor(url: string, timeoutMs: number): NodeHttp {
  const key = `${url.replace(/\/+$/, '')} ${timeoutMs}`;
  let client = clients.get(key);
  if (!client) clients.set(key, (client = new NodeHttp(url, { timeoutMs })));
  return client;
}
