/**
 * The typed client (clients/typescript) against the real stack: signup through it (challenge signed by a
 * TronWeb wallet, bootstrap token, account, API key), reads, funding by `./bin/ops adjust`, orders with
 * client_order_id (again: the same order back; twice at the same moment: one order; an answer lost on
 * the way back: the retry gets the original), a write budget of 2 per second met by waiting what
 * Retry-After says, and cursor paging. The client's types come from the document this server serves.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { createEnergyClient, EnergyApiError, type EnergyClient } from '../../../clients/typescript/src';
import { newWallet, sign } from '../../support/identity';
import { assertLedgerInvariants } from '../../support/ledger-invariants';
import { startOrderStack, type OrderStack } from '../../support/orders';

let stack: OrderStack;
beforeAll(async () => {
  // Writes: 2 per second per key, so placing several orders at once meets 429 and Retry-After.
  stack = await startOrderStack('typedclient', { BUDGET_WRITES_PER_SEC: '2' });
});
afterAll(async () => {
  if (stack) await assertLedgerInvariants(stack.rt.pool);
  await stack?.stop();
});

/** Every attempt the client makes, as sent and as answered (real fetch underneath). */
interface Attempt { method: string; url: string; body: string; status: number | 'network_error'; retryAfter: string | null; sentAt: number; answeredAt: number; timestamp: string | null }

function observedFetch(log: Attempt[]): typeof fetch {
  return (async (url: string, init: RequestInit) => {
    const headers = new Headers(init.headers);
    const entry: Attempt = {
      method: String(init.method), url, body: String(init.body ?? ''), status: 'network_error', retryAfter: null, sentAt: Date.now(), answeredAt: 0, timestamp: headers.get('x-api-timestamp'),
    };
    log.push(entry);
    const res = await fetch(url, init);
    entry.status = res.status;
    entry.retryAfter = res.headers.get('retry-after');
    entry.answeredAt = Date.now();
    return res;
  }) as typeof fetch;
}

/** Signs up the way a customer does, through the typed client only. */
async function signUpWithClient(base: string): Promise<{ accountId: string; key: { id: string; secret: string } }> {
  const wallet = await newWallet();
  const anonymous = createEnergyClient({ baseUrl: base });
  const challenge = await anonymous.api.POST('/v1/accounts/challenge', { body: { address: wallet.address, purpose: 'signup' } });
  expect(challenge.response.status).toBe(201);
  const verified = await anonymous.api.POST('/v1/accounts/challenge/verify', {
    body: { address: wallet.address, nonce: challenge.data!.nonce, signature: sign(challenge.data!.message, wallet) },
  });
  expect(verified.response.status).toBe(200);
  const bootstrap = createEnergyClient({ baseUrl: base, bearerToken: verified.data!.bootstrap_token });
  const account = await bootstrap.api.POST('/v1/accounts', { body: { address: wallet.address, label: 'typed client' } });
  expect(account.response.status).toBe(201);
  const key = await bootstrap.api.POST('/v1/api-keys', { body: { name: 'bot' } });
  expect(key.response.status).toBe(201);
  // The ApiKey schema is shared with the list, where there is no secret: here there must be one.
  expect(key.data!.secret).toMatch(/.{20,}/);
  return { accountId: account.data!.account_id, key: { id: key.data!.id, secret: key.data!.secret as string } };
}

/** A proxy in front of the API that swallows the first 201 to POST /v1/orders: the server stored the order, the client never hears. */
async function answerLosingProxy(target: string): Promise<{ base: string; lost: () => number; close: () => Promise<void> }> {
  let lost = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => !['host', 'connection', 'content-length'].includes(k))) as Record<string, string>;
      const upstream = await fetch(target + req.url, { method: req.method, headers, body: chunks.length ? Buffer.concat(chunks) : undefined });
      const body = Buffer.from(await upstream.arrayBuffer());
      if (req.method === 'POST' && req.url === '/v1/orders' && upstream.status === 201 && lost === 0) {
        lost++;
        req.socket.destroy();
        return;
      }
      res.writeHead(upstream.status, Object.fromEntries([...upstream.headers].filter(([k]) => !['content-length', 'transfer-encoding', 'connection', 'keep-alive'].includes(k))));
      res.end(body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    lost: () => lost,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

const energy = (receiver: string, clientOrderId?: string) => ({ resource: 'energy' as const, amount: 65_000, tier: '5m' as const, receiver, ...(clientOrderId ? { client_order_id: clientOrderId } : {}) });

test('the client is generated from the document this server serves', async () => {
  const served = await (await fetch(`${stack.base}/v1/openapi.json`)).json();
  const generated = JSON.parse(readFileSync(path.resolve(__dirname, '../../../clients/typescript/generated/openapi.json'), 'utf8'));
  expect(generated).toEqual(served);
});

test('sign up, read, fund, order with retries, page: all through the typed client', async () => {
  const { accountId, key } = await signUpWithClient(stack.base);
  const attempts: Attempt[] = [];
  const client: EnergyClient = createEnergyClient({ baseUrl: stack.base, apiKey: key, fetch: observedFetch(attempts) });

  // Reads, signed with millisecond timestamps (13 digits).
  const account = await client.api.GET('/v1/account');
  expect(account.response.status).toBe(200);
  expect(account.data).toMatchObject({ id: accountId, status: 'unfunded' });
  expect(attempts[0].timestamp).toMatch(/^\d{13}$/);

  // The other timestamp form: Unix seconds, for a read and a write.
  const secondsAttempts: Attempt[] = [];
  const inSeconds = createEnergyClient({ baseUrl: stack.base, apiKey: key, timestampUnit: 'seconds', fetch: observedFetch(secondsAttempts) });
  expect((await inSeconds.api.GET('/v1/account')).response.status).toBe(200);
  const quote = await inSeconds.api.POST('/v1/quotes', { body: { resource: 'energy', amount: 65_000, tier: '5m', receiver: (await newWallet()).address } });
  expect([quote.response.status, quote.data?.pay_amount_sun]).toEqual([201, 65_000 * Number(quote.data!.price_sun_per_unit!)]);
  expect(secondsAttempts.map((x) => x.timestamp)).toEqual([expect.stringMatching(/^\d{10}$/), expect.stringMatching(/^\d{10}$/)]);

  // Funding by the ops tool, as support does.
  const { stdout } = await promisify(execFile)(path.resolve(__dirname, '../../../bin/ops'), ['adjust', '--account', accountId, '--amount-sun', '100000000000', '--memo', 'typed client test'], {
    env: stack.world.env, encoding: 'utf8',
  });
  expect(stdout.trim()).toMatch(/^[a-z]+_/);
  const funded = await client.api.GET('/v1/balance');
  expect(funded.data).toMatchObject({ balance_sun: 100_000_000_000, reserved_sun: 0 });

  // An order with client_order_id, then the same again: the same order, not a second one.
  const receiver = (await newWallet()).address;
  const first = await client.placeOrder(energy(receiver, 'bot-1'));
  expect(first.created).toBe(true);
  expect(first.order).toMatchObject({ client_order_id: 'bot-1', account_id: accountId, receiver, status: 'allocating' });
  const again = await client.placeOrder(energy(receiver, 'bot-1'));
  expect([again.created, again.order.id]).toEqual([false, first.order.id]);

  // A different body under the same client_order_id is refused, with the envelope as an exception.
  const conflict = await client.placeOrder({ ...energy(receiver, 'bot-1'), amount: 70_000 }).catch((e: unknown) => e);
  expect(conflict).toBeInstanceOf(EnergyApiError);
  expect([(conflict as EnergyApiError).status, (conflict as EnergyApiError).code]).toEqual([409, 3010]);

  // The same order twice at the same moment: identical bodies, distinct signatures, one order.
  const [a, b] = await Promise.all([client.placeOrder(energy(receiver, 'bot-2')), client.placeOrder(energy(receiver, 'bot-2'))]);
  expect(a.order.id).toBe(b.order.id);
  expect([a.created, b.created].sort()).toEqual([false, true]);

  // Five orders at once on a budget of two writes per second: some meet 429, wait Retry-After, all land.
  attempts.length = 0;
  const burst = await Promise.all([1, 2, 3, 4, 5].map((i) => client.placeOrder(energy(receiver, `burst-${i}`))));
  expect(burst.every((r) => r.created)).toBe(true);
  const limited = attempts.filter((x) => x.status === 429);
  expect(limited.length).toBeGreaterThan(0);
  expect(limited.every((x) => x.retryAfter !== null && Number(x.retryAfter) >= 1)).toBe(true);
  // Each 429 was followed by the same request (same body, new signature), no sooner than Retry-After asked.
  const posts = attempts.filter((x) => x.method === 'POST');
  expect(posts.length).toBe(5 + limited.length);
  for (const refused of limited) {
    const next = posts.find((x) => x.body === refused.body && x.sentAt >= refused.answeredAt);
    expect(next).toBeDefined();
    expect(next!.timestamp).not.toBe(refused.timestamp);
    expect(next!.sentAt - refused.answeredAt).toBeGreaterThanOrEqual(Number(refused.retryAfter) * 1000);
  }
  expect(new Set(posts.filter((x) => x.status === 201).map((x) => x.body)).size).toBe(5);

  // Cursor paging: 8 orders (bot-1, bot-2, five of the burst, and one below) in pages of 3, none twice.
  const viaProxy = await answerLosingProxy(stack.base);
  try {
    const proxied = createEnergyClient({ baseUrl: viaProxy.base, apiKey: key });
    // The answer to the first attempt is lost after the server stored the order; the retry (same
    // client_order_id, fresh signature) gets the original back, and the account has one such order.
    const lostAnswer = await proxied.placeOrder(energy(receiver, 'lost-answer'));
    expect(viaProxy.lost()).toBe(1);
    expect(lostAnswer.created).toBe(false);
    const same = await client.api.GET('/v1/orders', { params: { query: { client_order_id: 'lost-answer' } } });
    expect(same.data!.data.map((o) => o.id)).toEqual([lostAnswer.order.id]);
  } finally {
    await viaProxy.close();
  }

  const seen: string[] = [];
  const pageAttempts = attempts.length;
  for await (const order of client.paginate('/v1/orders', { query: { limit: 3 } })) seen.push(order.id);
  expect(attempts.length - pageAttempts).toBe(3); // 3 + 3 + 2
  expect(new Set(seen).size).toBe(8);
  const expected = [first.order.id, a.order.id, ...burst.map((r) => r.order.id)];
  expect(seen).toEqual(expect.arrayContaining(expected));

  // What the orders hold is reserved, once per order.
  const balance = await client.api.GET('/v1/balance');
  expect(balance.data!.reserved_sun).toBe(8 * Number(first.order.total_amount_sun));
});
