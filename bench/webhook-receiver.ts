/**
 * The webhook benchmark's receiver as a process of its own (bench/webhooks.ts forks it unless
 * BENCH_RECEIVER=inprocess): an HTTPS server with the test CA's certificate (the CA, made here, is sent to
 * the parent with the URL) that answers 200 at once, and reports over IPC, every 10 ms, each request's key
 * (the credit's reference_id, else the event id) and its arrival time (performance.timeOrigin +
 * performance.now(), comparable across processes on one machine). Asked `{ cpu: true }`, it answers with
 * its CPU time so far (process.cpuUsage()). It does only what a receiver must (read the body, answer): the
 * key is taken from the body's text, not a JSON parse, as it stands for another machine's work.
 */
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { testCa } from '../test/support/https-receiver';

const REFERENCE = /"reference_id":"([^"]+)"/;
const EVENT_ID = /"event_id":"([^"]+)"/;

async function main(): Promise<void> {
  let pending: Array<[string, number]> = [];
  const { key, cert, ca } = testCa();
  const server = https.createServer({ key, cert, keepAliveTimeout: 60_000 }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = performance.timeOrigin + performance.now();
      const body = Buffer.concat(chunks).toString('utf8');
      const id = REFERENCE.exec(body)?.[1] ?? EVENT_ID.exec(body)?.[1];
      if (id) pending.push([id, at]);
      res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': '2' });
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const flush = setInterval(() => {
    if (pending.length === 0) return;
    process.send!({ arrivals: pending });
    pending = [];
  }, 10);
  process.on('message', (m: { stop?: boolean; cpu?: boolean }) => {
    if (m.cpu) process.send!({ cpu: process.cpuUsage() });
    if (!m.stop) return;
    clearInterval(flush);
    server.closeAllConnections();
    server.close(() => process.exit(0));
  });
  process.send!({ url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, ca: ca.toString() });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
