/**
 * Overload on the real stack: far more POST /v1/orders at once than the API admits (ADMISSION_MAX_IN_FLIGHT
 * cut to 8). Every request is answered, each a 201 or refused with Retry-After (503 5030 at the edge, 429 past
 * the account's budget); a refusal stored and charged nothing (the account is charged exactly its 201s'
 * totals, and lists exactly those orders); every 201 is delivered once, read from the chain (stake per
 * receiver equals the delivered orders'); once the burst is over, the next request is admitted.
 *
 * "Refused at once" is shown without a clock: with every slot held by a request whose body has not arrived,
 * the next request is answered 503 while its own body is still unsent, so it waited for nothing. How fast
 * refusals come under load is a figure of the bench (bench/orders.ts, 2,000/s offered), not of a test on a
 * shared machine where the client, the API and the pipeline share one event loop.
 */
import { request, type ClientRequest, type IncomingMessage } from 'node:http';
import { TronWeb } from 'tronweb';
import { assertLedgerInvariants } from '../../support/ledger-invariants';
import {
  chainDelegations, chargesByOrder, fundedCustomer, isDelivered, landedDelegations, orderCall, orderUntil, postOrder, startDeliveryStack, type OrderStack,
} from '../../support/orders';
import { signedHeaders, type Customer } from '../../support/identity';

const BURST = 160;
const FUNDS = 100_000_000_000n;
let stack: OrderStack;
let tronWeb: TronWeb;
let customer: Customer;

beforeAll(async () => {
  stack = await startDeliveryStack('overload', 1, { ADMISSION_MAX_IN_FLIGHT: '8' });
  tronWeb = new TronWeb({ fullHost: stack.devnet.url });
  customer = await fundedCustomer(stack, FUNDS);
});
afterAll(async () => {
  if (stack) await assertLedgerInvariants(stack.rt.pool);
  await stack?.stop();
});

test('a burst past capacity: every request answered 201 or 503 with Retry-After; the 503s cost nothing; every 201 delivered once', async () => {
  const receivers = stack.devnet.accounts.customers.slice(0, 4).map((c) => c.address);
  const answers = await Promise.all(Array.from({ length: BURST }, async (_, i) => {
    const started = performance.now();
    const reply = await postOrder(stack, customer, { resource: 'energy', amount: 10_000, tier: '1h', receiver: receivers[i % receivers.length] });
    return { ...reply, ms: performance.now() - started };
  }));
  // Answered within the deadlines the service sets itself, never a queue that outlives them: a refusal before
  // any command's deadline, an admitted order within its command's and then the wait for its broadcast.
  for (const a of answers.filter((x) => x.status !== 201)) expect(a.ms).toBeLessThan(stack.rt.cfg.COMMAND_TIMEOUT_MS);
  for (const a of answers) expect(a.ms).toBeLessThan(stack.rt.cfg.COMMAND_TIMEOUT_MS + stack.rt.cfg.ORDER_SYNC_WAIT_MS);
  const byStatus = new Map<number, number>();
  for (const a of answers) byStatus.set(a.status, (byStatus.get(a.status) ?? 0) + 1);
  // 201, or refused at once: 503 at the edge, or 429 past the account's orders-per-second budget.
  expect([...byStatus.keys()].filter((s) => ![201, 429, 503].includes(s))).toEqual([]);
  expect(byStatus.get(503)).toBeGreaterThan(0);
  for (const a of answers.filter((x) => x.status === 503)) {
    expect(a.body).toMatchObject({ error: { code: 5030, slug: 'service_unavailable', details: { reason: 'in_flight' } }, request_id: a.headers.get('x-request-id') });
    expect(a.headers.get('content-type')).toMatch(/^application\/json/);
    expect(Number(a.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  }
  for (const a of answers.filter((x) => x.status === 429)) expect(Number(a.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  const accepted = answers.filter((a) => a.status === 201).map((a) => a.body);
  expect(accepted.length).toBeGreaterThan(0);

  // Nothing stored for a 503: the account's orders are exactly the 201s, each charged once.
  const listed = await orderCall(stack, customer, 'GET', '/v1/orders?limit=200');
  expect(listed.body.data.map((o: any) => o.id).sort()).toEqual(accepted.map((o) => o.id).sort());

  // Every 201 delivered, and the chain holds exactly that stake per receiver.
  const delivered = await Promise.all(accepted.map((o) => orderUntil(stack, customer, o.id, isDelivered, 120_000)));
  expect(delivered).toHaveLength(accepted.length);
  const charges = await chargesByOrder(stack.rt.pool);
  expect(accepted.map((o) => charges.get(o.id))).toEqual(accepted.map(() => 1));
  expect([...charges.values()].reduce((a, b) => a + b, 0)).toBe(accepted.length);
  for (const receiver of receivers) {
    const row = await stack.rt.pool.query('SELECT allocations FROM orders WHERE receiver = $1', [receiver]);
    const fromRows = new Map<string, bigint>();
    for (const r of row.rows) for (const [from, sun] of landedDelegations(r.allocations)) fromRows.set(from, (fromRows.get(from) ?? 0n) + sun);
    expect(await chainDelegations(tronWeb, receiver)).toEqual(fromRows);
  }
  const spent = accepted.reduce((sum, o) => sum + BigInt(o.total_amount_sun), 0n);
  const balance = await orderCall(stack, customer, 'GET', '/v1/balance');
  expect(BigInt(balance.body.balance_sun)).toBe(FUNDS - spent);

  // The burst is over: the next request is admitted.
  const after = await postOrder(stack, customer, { resource: 'energy', amount: 10_000, tier: '1h', receiver: receivers[0] });
  expect(after.status).toBe(201);
  await orderUntil(stack, customer, after.body.id, isDelivered, 120_000);
}, 300_000);

/** A signed POST /v1/orders whose headers are sent and whose body is held back: the server has not got it. */
function heldOrder(receiver: string, amount: number): { req: ClientRequest; response: Promise<IncomingMessage> } {
  const raw = JSON.stringify({ resource: 'energy', amount, tier: '1h', receiver });
  const url = new URL('/v1/orders', stack.base);
  const req = request(url, {
    method: 'POST', agent: false,
    headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(raw)), ...signedHeaders(customer.key, 'POST', '/v1/orders', raw) },
  });
  req.flushHeaders();
  const response = new Promise<IncomingMessage>((resolve, reject) => {
    req.once('response', resolve);
    req.once('error', reject);
  });
  return { req, response };
}

test('refused at once: with every slot held by a request still sending its body, the next is answered 503 before its own body is sent', async () => {
  const receiver = stack.devnet.accounts.customers[0].address;
  const before = await orderCall(stack, customer, 'GET', '/v1/orders?limit=200');
  const holders = Array.from({ length: stack.rt.cfg.ADMISSION_MAX_IN_FLIGHT }, (_, i) => heldOrder(receiver, 20_000 + i));
  for (const h of holders) h.response.catch(() => {});
  // Each holder takes its slot when its headers are read; give the server the moment that takes.
  const probe = async () => {
    const next = heldOrder(receiver, 30_000);
    const answer = await Promise.race([next.response, new Promise<null>((r) => setTimeout(() => r(null), 2_000))]);
    next.req.destroy();
    return answer;
  };
  let refused: IncomingMessage | null = null;
  for (let attempt = 0; attempt < 20 && refused === null; attempt++) {
    const answer = await probe();
    if (answer?.statusCode === 503) refused = answer;
    else if (answer !== null) throw new Error(`a request past the held slots was answered ${answer.statusCode}`);
  }
  expect(refused).not.toBeNull();
  const text = await new Promise<string>((resolve) => {
    let body = '';
    refused!.on('data', (c) => { body += c; }).on('end', () => resolve(body)).on('error', () => resolve(body));
  });
  expect(JSON.parse(text)).toMatchObject({ error: { code: 5030, slug: 'service_unavailable', details: { reason: expect.stringMatching(/^(in_flight|concurrency)$/) } } });
  expect(Number(refused!.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  // None of the holders was answered: each still waits for its body.
  const answeredHolders = await Promise.race([Promise.any(holders.map((h) => h.response)).then(() => true, () => false), new Promise<boolean>((r) => setTimeout(() => r(false), 200))]);
  expect(answeredHolders).toBe(false);

  // The holders give up: their slots free, nothing of theirs stored, and the next request is admitted.
  for (const h of holders) h.req.destroy();
  const after = await postOrder(stack, customer, { resource: 'energy', amount: 10_000, tier: '1h', receiver });
  expect(after.status).toBe(201);
  const listed = await orderCall(stack, customer, 'GET', '/v1/orders?limit=200');
  expect(listed.body.data.map((o: any) => o.id).sort()).toEqual([...before.body.data.map((o: any) => o.id), after.body.id].sort());
  await orderUntil(stack, customer, after.body.id, isDelivered, 120_000);
}, 120_000);
