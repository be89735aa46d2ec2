/**
 * The receiver example of the README's webhook guide, verbatim, so the unit tests prove it against
 * what the dispatcher really sends. Only node:crypto and node:http: no framework.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';

const REPLAY_WINDOW_SECONDS = 300;

export type Verdict =
  | { ok: true; event: { event: string; event_id: string; test: boolean; data: Record<string, unknown> } }
  | { ok: false; reason: string };

export function verifyWebhook(secret: string, headers: IncomingHttpHeaders, rawBody: Buffer, nowSeconds = Math.floor(Date.now() / 1000)): Verdict {
  const timestamp = headers['x-api-timestamp'];
  const signature = headers['x-api-sign'];
  if (typeof timestamp !== 'string' || typeof signature !== 'string' || !/^\d{1,12}$/.test(timestamp)) {
    return { ok: false, reason: 'missing or malformed signature headers' };
  }
  // 1. Verify before parsing: the HMAC covers the exact bytes received, never a re-serialised object.
  const expected = createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest();
  const given = Buffer.from(signature, 'base64');
  // 2. Compare in constant time (and only buffers of equal length).
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'bad signature' };
  // 3. Refuse timestamps outside ±300 s: a captured request cannot be replayed later.
  if (Math.abs(nowSeconds - Number(timestamp)) > REPLAY_WINDOW_SECONDS) return { ok: false, reason: 'timestamp outside the window' };
  // 4. Only now parse.
  return { ok: true, event: JSON.parse(rawBody.toString('utf8')) };
}

/** A receiver: verify, dedup on the signed body's event_id, ignore test deliveries for money, answer 2xx fast. */
export function webhookServer(secret: string, handle: (event: Extract<Verdict, { ok: true }>['event']) => void): Server {
  const handled = new Set<string>(); // use a table with a unique key in production
  return createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const verdict = verifyWebhook(secret, req.headers, Buffer.concat(chunks));
      if (!verdict.ok) {
        res.writeHead(401).end();
        return;
      }
      // The body's event_id, which the signature covers: the X-Event-Id header is not signed, so a replay
      // under a fresh header would pass a check on it.
      const eventId = verdict.event.event_id;
      if (!handled.has(eventId) && !verdict.event.test) {
        handled.add(eventId);
        handle(verdict.event); // route on verdict.event.event; ignore types you do not know
      }
      res.writeHead(200).end(); // a retry or the backup's copy of a handled event is acknowledged, not redone
    });
  });
}
