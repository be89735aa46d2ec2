/**
 * Issue 31: budgets per key no longer multiply with keys (an account-level ceiling, item 7), and credentials
 * that match nothing are counted per IP, refused before any lookup once spent, and /metrics is on a
 * listener of its own, off the public port (item 3).
 */
import { call, signedCall, signedHeaders, signUp, startIdentityStack, type IdentityStack } from '../../support/identity';
import net from 'node:net';
import { startMetricsServer } from '../../../services/api/health';
import { callFrom } from '../../support/from-ip';

let stack: IdentityStack;
let metricsPort: number;
beforeAll(async () => {
  metricsPort = await new Promise<number>((resolve) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
  stack = await startIdentityStack('acctbudget', {
    BUDGET_READS_PER_SEC: '4', BUDGET_ACCOUNT_CALLERS: '2', BUDGET_CREDENTIAL_MISSES_PER_IP_PER_MIN: '5', METRICS_PORT: String(metricsPort),
  });
});
afterAll(async () => {
  await stack?.stop();
});

/** Waits for the start of a fresh second (plus a margin), so a burst sees one window. */
async function freshSecond(): Promise<void> {
  await new Promise((r) => setTimeout(r, 1_000 - (Date.now() % 1_000) + 20));
}

test('four keys of one account share a ceiling of two keys\' reads per second', async () => {
  const owner = await signUp(stack.base);
  const keys = [owner.key];
  for (let i = 0; i < 3; i++) {
    const made = await call(stack.base, 'POST', '/v1/api-keys', { body: {}, headers: { authorization: `Bearer ${owner.token}` } });
    expect(made.status).toBe(201);
    keys.push({ id: made.body.id, secret: made.body.secret });
  }
  await freshSecond();
  // Each key stays within its own 4 per second; together they ask 16, the account allows 8.
  const replies = await Promise.all(keys.flatMap((key) => Array.from({ length: 4 }, () => signedCall(stack.base, key, 'GET', '/v1/balance'))));
  const ok = replies.filter((r) => r.status === 200).length;
  const limited = replies.filter((r) => r.status === 429);
  expect(ok).toBeGreaterThanOrEqual(8 - 1);
  expect(ok).toBeLessThanOrEqual(8);
  expect(limited.length).toBe(16 - ok);
  for (const r of limited) expect(r.body.error).toMatchObject({ code: 1020, details: { budget: 'account-reads', limit: 8 } });
  // Another account is not touched by this one's ceiling.
  await freshSecond();
  const other = await signUp(stack.base);
  expect((await signedCall(stack.base, other.key, 'GET', '/v1/balance')).status).toBe(200);
});

test('unknown credentials from one IP: five answered, then 429 before any lookup; good keys and other IPs unaffected', async () => {
  const owner = await signUp(stack.base);
  const ip = '127.0.4.1';
  const bogus: Array<Record<string, string>> = [
    { cookie: 'session=nope1' }, { authorization: 'Bearer abt_nope' }, { cookie: 'session=nope2' },
    { 'x-api-key': `key_${'0'.repeat(24)}`, 'x-api-timestamp': String(Math.floor(Date.now() / 1000)), 'x-api-sign': 'AAAA' },
    { cookie: 'session=nope3' }, { cookie: 'session=nope4' }, { authorization: 'Bearer abt_nope2' },
  ];
  const statuses: number[] = [];
  for (const headers of bogus) statuses.push((await callFrom(ip, stack.base, 'GET', '/v1/account', { headers })).status);
  expect(statuses.slice(0, 5).every((s) => s === 401)).toBe(true);
  expect(statuses.slice(5)).toEqual([429, 429]);
  // The owner's key, known to the cache, still works from that IP.
  await signedCall(stack.base, owner.key, 'GET', '/v1/balance');
  const path = '/v1/balance';
  expect((await callFrom(ip, stack.base, 'GET', path, { headers: signedHeaders(owner.key, 'GET', path) })).status).toBe(200);
  // Another IP's bogus cookie is still answered 401.
  expect((await callFrom('127.0.4.2', stack.base, 'GET', '/v1/account', { headers: { cookie: 'session=nope' } })).status).toBe(401);
});

test('with METRICS_PORT set, /metrics answers on its own listener and not on the public one', async () => {
  const metrics = startMetricsServer(stack.rt);
  try {
    await new Promise((r) => (metrics.listening ? r(null) : metrics.once('listening', r)));
    expect((await fetch(`${stack.base}/metrics`)).status).toBe(404);
    const scraped = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    expect(scraped.status).toBe(200);
    expect(await scraped.text()).toContain('http_requests_total');
    expect((await fetch(`${stack.base}/healthz`)).status).toBe(200);
  } finally {
    await new Promise((r) => metrics.close(r));
  }
});
