/**
 * A reverse proxy as a load balancer runs one, for tests: its own process, listening on loopback and
 * forwarding every request to TARGET from LOCAL_ADDRESS (its own source address, so the service can tell
 * it from a client), with the caller's address appended to X-Forwarded-For as nginx's
 * `$proxy_add_x_forwarded_for` does. Prints `listening <port>` once it accepts connections.
 *
 *   node --import tsx test/support/forwarding-proxy.ts <target-url> <local-address>
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

const [target, localAddress] = process.argv.slice(2);
if (!target || !localAddress) throw new Error('usage: forwarding-proxy.ts <target-url> <local-address>');
const upstream = new URL(target);

const server = http.createServer((req, res) => {
  const peer = req.socket.remoteAddress ?? '';
  const before = req.headers['x-forwarded-for'];
  const forwarded = [before, peer].filter(Boolean).join(', ');
  const out = http.request(
    { host: upstream.hostname, port: upstream.port, localAddress, method: req.method, path: req.url, headers: { ...req.headers, 'x-forwarded-for': forwarded } },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  out.on('error', () => {
    res.writeHead(502).end();
  });
  req.pipe(out);
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
