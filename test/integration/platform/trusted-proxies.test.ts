/**
 * Client address behind a proxy (issue 30, item 2): through a real proxy process on loopback, each client
 * behind it has its own per-IP budget (the rightmost untrusted X-Forwarded-For hop); a forged header is
 * ignored, from a client behind the proxy (the proxy appends the real peer) and from an untrusted peer
 * sending it directly (its socket address is the key).
 */
import type { ChildProcess } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { newWallet, startIdentityStack, type IdentityStack } from '../../support/identity';
import { startListening } from '../../support/listening-process';

const PROXY_ADDRESS = '127.0.0.2';
let stack: IdentityStack;
let proxy: ChildProcess;
let proxyPort: number;

beforeAll(async () => {
  stack = await startIdentityStack('proxies', { BUDGET_CHALLENGE_PER_IP_PER_MIN: '3', TRUSTED_PROXIES: `10.9.0.0/16,${PROXY_ADDRESS}` });
  ({ child: proxy, port: proxyPort } = await startListening(path.join(__dirname, '../../support/forwarding-proxy.ts'), [stack.base, PROXY_ADDRESS]));
}, 120_000);
afterAll(async () => {
  proxy?.kill('SIGTERM');
  await stack?.stop();
});

/** One POST /v1/accounts/challenge from `from` (a loopback source address) to `port`, with extra headers. */
async function challenge(port: number, from: string, headers: Record<string, string> = {}): Promise<number> {
  const body = JSON.stringify({ address: (await newWallet()).address });
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, localAddress: from, method: 'POST', path: '/v1/accounts/challenge', agent: false, headers: { 'content-type': 'application/json', ...headers } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function statuses(port: number, from: string, count: number, headers: (i: number) => Record<string, string> = () => ({})): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < count; i++) out.push(await challenge(port, from, headers(i)));
  return out;
}

const apiPort = () => Number(new URL(stack.base).port);

test('behind the proxy each client has its own budget: one caller spending it all stops nobody else', async () => {
  expect(await statuses(proxyPort, '127.0.0.10', 5)).toEqual([201, 201, 201, 429, 429]);
  // A second client through the same proxy still gets its challenges.
  expect(await statuses(proxyPort, '127.0.0.11', 3)).toEqual([201, 201, 201]);
  // The proxy itself, calling directly, is a client like any other: not limited by what its clients spent.
  expect(await challenge(apiPort(), PROXY_ADDRESS)).toBe(201);
});

test('a forged X-Forwarded-For is ignored: behind the proxy the real peer is the rightmost untrusted hop', async () => {
  // Every request claims another address on the left; the proxy appends the real one, which is counted.
  const forged = await statuses(proxyPort, '127.0.0.12', 5, (i) => ({ 'x-forwarded-for': `203.0.113.${i}` }));
  expect(forged).toEqual([201, 201, 201, 429, 429]);
  // Two trusted hops (a proxy behind a proxy in 10.9.0.0/16): both are skipped, the client behind them is counted.
  expect(await challenge(apiPort(), PROXY_ADDRESS, { 'x-forwarded-for': '198.51.100.7, 127.0.0.12, 10.9.1.1' })).toBe(429);
});

test('from an untrusted peer the header is not read at all: its socket address is the key', async () => {
  const direct = await statuses(apiPort(), '127.0.0.13', 5, (i) => ({ 'x-forwarded-for': `198.51.100.${i}` }));
  expect(direct).toEqual([201, 201, 201, 429, 429]);
  // Spending 127.0.0.13's budget with forged headers spent nobody else's: an address it claimed still gets in.
  expect(await challenge(apiPort(), PROXY_ADDRESS, { 'x-forwarded-for': '198.51.100.0' })).toBe(201);
});
