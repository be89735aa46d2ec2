/**
 * A TLS-terminating reverse proxy with HTTP basic auth, as a deployment puts in front of a schema registry
 * that has neither: its own process, HTTPS on loopback with the certificate and key given, every request
 * without the expected credentials answered 401, the others forwarded to TARGET over plain HTTP. Prints
 * `listening <port>` once it accepts connections.
 *
 *   node --import tsx test/support/tls-auth-proxy.ts <target-url> <cert.pem> <key.pem> <user:password>
 */
import http from 'node:http';
import https from 'node:https';
import { readFileSync } from 'node:fs';
import { timingSafeEqual } from 'node:crypto';
import type { AddressInfo } from 'node:net';

const [target, certFile, keyFile, credentials] = process.argv.slice(2);
if (!target || !certFile || !keyFile || !credentials) throw new Error('usage: tls-auth-proxy.ts <target-url> <cert> <key> <user:password>');
const upstream = new URL(target);
const expected = Buffer.from(`Basic ${Buffer.from(credentials).toString('base64')}`);

const authorized = (header: string | undefined) => {
  const given = Buffer.from(header ?? '');
  return given.length === expected.length && timingSafeEqual(given, expected);
};

const server = https.createServer({ cert: readFileSync(certFile), key: readFileSync(keyFile) }, (req, res) => {
  if (!authorized(req.headers.authorization)) {
    res.writeHead(401, { 'www-authenticate': 'Basic realm="registry"', 'content-type': 'application/json' }).end('{"error_code":401,"message":"Unauthorized"}');
    return;
  }
  const { authorization: _dropped, ...headers } = req.headers;
  const out = http.request(
    { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...headers, host: upstream.host } },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  out.on('error', () => res.writeHead(502).end());
  req.pipe(out);
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
