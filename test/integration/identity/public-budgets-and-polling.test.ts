/**
 * Budgets on every public route (issue 12, item 5): public proofs (challenge verify, sign-in, account
 * creation by signature) per IP per minute, bootstrap-token and session calls per caller per second,
 * public reads per IP per second; each answered 429 1020 with Retry-After. And the polling contract
 * (contract.md section 2): GET signatures may repeat, POST ones may not; X-API-TIMESTAMP in milliseconds.
 */
import { signature as signRequest } from '../../../clients/typescript/src/signing';
import {
  call, newWallet, sessionHeaders, signedChallenge, signedHeaders, signIn, signUp, startIdentityStack, type IdentityStack, type Reply,
} from '../../support/identity';

let stack: IdentityStack;
beforeAll(async () => {
  stack = await startIdentityStack('pubbudget', { BUDGET_PROOFS_PER_IP_PER_MIN: '6', BUDGET_PUBLIC_READS_PER_IP_PER_SEC: '4', BUDGET_READS_PER_SEC: '4', BUDGET_WRITES_PER_SEC: '4' });
});
afterAll(async () => {
  await stack?.stop();
});
/** Only this world's budget keys (the test Redis is shared). */
async function resetBudgets(): Promise<void> {
  const keys = await stack.rt.redis.keys(`${stack.rt.cfg.topicPrefix}budget:*`);
  if (keys.length) await stack.rt.redis.del(...keys);
}
function expectLimited(replies: Reply[]): void {
  const limited = replies.filter((r) => r.status === 429);
  expect(limited.length).toBeGreaterThan(0);
  for (const r of limited) {
    expect(r.body.error.code).toBe(1020);
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  }
}

test('public proofs: verify and sign-in share 6 per minute per IP, 300 at once are not all answered', async () => {
  await resetBudgets();
  const wallet = await newWallet();
  // Bad signatures cost a proof too: the budget is spent before the proof is checked.
  const bad = { address: wallet.address, nonce: 'n'.repeat(32), signature: `0x${'a'.repeat(130)}` };
  const replies = await Promise.all(Array.from({ length: 300 }, (_, i) => call(stack.base, 'POST', i % 2 ? '/v1/session' : '/v1/accounts/challenge/verify', { body: bad })));
  const counts = { 401: 0, 429: 0, other: 0 } as Record<string, number>;
  for (const r of replies) counts[r.status === 401 || r.status === 429 ? r.status : 'other']++;
  // 6 per minute window; a burst that straddles a minute boundary may see two windows.
  expect(counts.other).toBe(0);
  expect(counts[401]).toBeGreaterThanOrEqual(6);
  expect(counts[401]).toBeLessThanOrEqual(12);
  expectLimited(replies);
  expect(Number(replies.find((r) => r.status === 429)!.headers.get('retry-after'))).toBeLessThanOrEqual(60);
});

test('public reads (prices, the document) are budgeted per IP per second', async () => {
  await resetBudgets();
  const replies = await Promise.all(Array.from({ length: 12 }, (_, i) => call(stack.base, 'GET', i % 2 ? '/v1/prices' : '/v1/openapi.json')));
  expect(replies.filter((r) => r.status === 200).length).toBeLessThanOrEqual(4 + 4); // at most one window change inside the burst
  expectLimited(replies);
});

test('bootstrap-token reads and session calls are budgeted per caller', async () => {
  await resetBudgets();
  const wallet = await newWallet();
  const proof = await signedChallenge(stack.base, wallet);
  const verified = await call(stack.base, 'POST', '/v1/accounts/challenge/verify', { body: proof });
  const bearer = { authorization: `Bearer ${verified.body.bootstrap_token}` };
  expect((await call(stack.base, 'POST', '/v1/accounts', { body: { address: wallet.address }, headers: bearer })).status).toBe(201);
  await resetBudgets();
  expectLimited(await Promise.all(Array.from({ length: 12 }, () => call(stack.base, 'GET', '/v1/accounts/deposit-address', { headers: bearer }))));
  await resetBudgets();
  const session = await signIn(stack.base, wallet);
  expectLimited(await Promise.all(Array.from({ length: 12 }, () => call(stack.base, 'GET', '/v1/session', { headers: sessionHeaders(session) }))));
});

test('a polling bot may repeat a GET signature; a POST signature is single use; millisecond timestamps are accepted', async () => {
  await resetBudgets();
  const customer = await signUp(stack.base);
  await resetBudgets();
  const headers = signedHeaders(customer.key, 'GET', '/v1/balance');
  const polls = [];
  for (let i = 0; i < 3; i++) polls.push((await call(stack.base, 'GET', '/v1/balance', { headers })).status);
  expect(polls).toEqual([200, 200, 200]);

  const ms = String(Date.now());
  const msHeaders = { 'x-api-key': customer.key.id, 'x-api-timestamp': ms, 'x-api-sign': signRequest(customer.key.secret, ms, 'GET', '/v1/account', '') };
  expect((await call(stack.base, 'GET', '/v1/account', { headers: msHeaders })).status).toBe(200);
  const stale = String(Date.now() - 301_000);
  const staleHeaders = { ...msHeaders, 'x-api-timestamp': stale, 'x-api-sign': signRequest(customer.key.secret, stale, 'GET', '/v1/account', '') };
  expect((await call(stack.base, 'GET', '/v1/account', { headers: staleHeaders })).body.error.code).toBe(1002);

  await resetBudgets();
  const body = JSON.stringify({ url: 'https://203.0.113.9/hook' });
  const post = signedHeaders(customer.key, 'POST', '/v1/webhooks', body);
  const first = await call(stack.base, 'POST', '/v1/webhooks', { raw: body, headers: post });
  const second = await call(stack.base, 'POST', '/v1/webhooks', { raw: body, headers: post });
  expect(first.status).not.toBe(401);
  expect([second.status, second.body.error.code]).toEqual([401, 1002]);
  // The same POST signed afresh (a millisecond timestamp) is a new request, not a replay.
  const again = String(Date.now() + 1);
  const fresh = await call(stack.base, 'POST', '/v1/webhooks', { raw: body, headers: { ...post, 'x-api-timestamp': again, 'x-api-sign': signRequest(customer.key.secret, again, 'POST', '/v1/webhooks', body) } });
  expect(fresh.status).not.toBe(401);
});

test('a signed write spends its budget with the signature; a replay or a key lacking the scope spends nothing', async () => {
  await resetBudgets();
  const customer = await signUp(stack.base);
  const reader = await signUp(stack.base, ['account.read']);
  await resetBudgets();
  const body = '{}'; // refused by validation (400), which runs after authentication and the budget
  const post = (key: { id: string; secret: string }) => call(stack.base, 'POST', '/v1/webhooks', { raw: body, headers: signedHeaders(key, 'POST', '/v1/webhooks', body) });

  // Lacking the scope: 1015 every time and no budget spent, however many at once (4 per second allowed).
  const lacking = await Promise.all(Array.from({ length: 12 }, () => post(reader.key)));
  expect(lacking.map((r) => r.body.error.code)).toEqual(Array(12).fill(1015));
  expect(await stack.rt.redis.keys(`${stack.rt.cfg.topicPrefix}budget:writes:${reader.key.id}:*`)).toEqual([]);
  // Its replay is a replay (1002), not a scope question.
  const headers = signedHeaders(reader.key, 'POST', '/v1/webhooks', body);
  const first = await call(stack.base, 'POST', '/v1/webhooks', { raw: body, headers });
  const replay = await call(stack.base, 'POST', '/v1/webhooks', { raw: body, headers });
  expect([first.status, first.body.error.code, replay.status, replay.body.error.code]).toEqual([403, 1015, 401, 1002]);

  // With the scope: the budget holds (429 1020 with Retry-After past 4 per second) ...
  const writes = await Promise.all(Array.from({ length: 12 }, () => post(customer.key)));
  expectLimited(writes);
  for (const r of writes.filter((w) => w.status !== 429)) expect([r.status, r.body.error.code]).toEqual([400, 2000]);
  // ... and a replayed write is refused without spending: the window's count is that of the fresh ones.
  await resetBudgets();
  const once = signedHeaders(customer.key, 'POST', '/v1/webhooks', body);
  const sent = [await call(stack.base, 'POST', '/v1/webhooks', { raw: body, headers: once }), await call(stack.base, 'POST', '/v1/webhooks', { raw: body, headers: once })];
  expect(sent.map((r) => r.body.error.code)).toEqual([2000, 1002]);
  const spentKeys = await stack.rt.redis.keys(`${stack.rt.cfg.topicPrefix}budget:writes:${customer.key.id}:*`);
  const counts = await Promise.all(spentKeys.map((k) => stack.rt.redis.get(k)));
  expect(counts.reduce((a, c) => a + Number(c), 0)).toBe(1);
});

test('a Lua script first used in the same turn as other auto-pipelined commands answers (EVAL when Redis lacks it)', async () => {
  const { luaScript } = await import('../../../services/platform/redis');
  const { redis } = stack.rt;
  const key = `${stack.rt.cfg.topicPrefix}lua-test`;
  // A script no Redis has seen yet (its text is new), so the first call meets NOSCRIPT and loads it.
  const script = luaScript(`-- ${Date.now()}-${Math.random()}\nreturn redis.call('INCRBY', KEYS[1], ARGV[1])`, 1);
  const [before, first, second] = await Promise.all([redis.get(key), script(redis, key, 2), script(redis, key, 3)]);
  expect(before).toBeNull();
  expect([first, second].map(Number).sort()).toEqual([2, 5]);
  expect(Number(await script(redis, key, 1))).toBe(6);
  await redis.del(key);
});
