/**
 * A request from a chosen loopback source address (127.0.0.2, 127.0.0.3, ...): Linux routes all of
 * 127/8 to lo, so a test can be several real clients at once and the service sees several IPs.
 */
import http from 'node:http';
import type { Reply } from './identity';

export function callFrom(ip: string, base: string, method: string, path: string, options: { body?: unknown; headers?: Record<string, string> } = {}): Promise<Reply> {
  const url = new URL(base + path);
  const raw = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: url.hostname, port: url.port, path: url.pathname + url.search, method, localAddress: ip, agent: false, headers: { ...(raw !== undefined ? { 'content-type': 'application/json' } : {}), ...options.headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: unknown = null;
          try {
            body = text ? JSON.parse(text) : null;
          } catch {
            body = text;
          }
          const headers = new Headers();
          for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(', ') : v);
          resolve({ status: res.statusCode ?? 0, body, text, headers });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(raw);
  });
}
