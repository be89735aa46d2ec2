/**
 * Budgets at their contract values (challenge creation per address and per IP, API-key reads), answered
 * 429 1020 with Retry-After; and the support rotation of a deposit address with its limits and event.
 */
import { rotateDepositAddress } from '../../../services/ops/rotate-deposit-address';
import { readTopic } from '../../support/topic-reader';
import { eventually } from '../../support/world';
import { call, newWallet, signedCall, signedHeaders, signUp, startIdentityStack, type IdentityStack } from '../../support/identity';

let stack: IdentityStack;
beforeAll(async () => {
  stack = await startIdentityStack('budgets', { BUDGET_CHALLENGE_PER_IP_PER_MIN: '10', BUDGET_CHALLENGE_PER_ADDRESS_PER_MIN: '5', BUDGET_READS_PER_SEC: '3' });
});
/** Only this world's budget keys (the test Redis is shared). */
async function resetBudgets(): Promise<void> {
  const keys = await stack.rt.redis.keys(`${stack.rt.cfg.topicPrefix}budget:*`);
  if (keys.length) await stack.rt.redis.del(...keys);
}

afterAll(async () => {
  await stack?.stop();
});

test('challenge creation: 5 per minute per address, 10 per minute per IP, then 429 1020 with Retry-After', async () => {
  const { base } = stack;
  // Budgets count per fixed minute: start the burst well inside one, so it meets a single window.
  const leftInMinute = 60_000 - (stack.rt.clock.now() % 60_000);
  if (leftInMinute < 15_000) await new Promise((r) => setTimeout(r, leftInMinute + 100));
  const wallet = await newWallet();
  const statuses = [];
  for (let i = 0; i < 6; i++) statuses.push((await call(base, 'POST', '/v1/accounts/challenge', { body: { address: wallet.address } })).status);
  expect(statuses).toEqual([201, 201, 201, 201, 201, 429]);
  const others = await Promise.all(Array.from({ length: 5 }, () => newWallet()));
  const more = [];
  for (const w of others) more.push(await call(base, 'POST', '/v1/accounts/challenge', { body: { address: w.address } }));
  // 6 + 5 = 11 requests from this IP: the eleventh is over the IP budget.
  const limited = more[more.length - 1];
  expect([limited.status, limited.body.error.code]).toEqual([429, 1020]);
  expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  expect(Number(limited.headers.get('retry-after'))).toBeLessThanOrEqual(60);
});

test('API-key reads are budgeted per key', async () => {
  const { base } = stack;
  await resetBudgets();
  const customer = await signUp(base);
  // Distinct timestamps make distinct signatures (a repeated signature is a replay: 1002).
  const now = Math.floor(Date.now() / 1000);
  const replies = await Promise.all(Array.from({ length: 8 }, (_, i) => call(base, 'GET', '/v1/account', { headers: signedHeaders(customer.key, 'GET', '/v1/account', '', now - i) })));
  const limited = replies.filter((r) => r.status === 429);
  expect(limited.length).toBeGreaterThan(0);
  expect(limited[0].body.error.code).toBe(1020);
  expect(limited[0].headers.get('retry-after')).toBe('1');
});

test('support rotates a deposit address once within the limits; the retired one is listed; deposit_address.rotated is emitted', async () => {
  const { base, rt, bus } = stack;
  await resetBudgets();
  const customer = await signUp(base);
  const before = await signedCall(base, customer.key, 'GET', '/v1/deposit-addresses');
  const old = before.body.data[0].address;
  const rotated = await rotateDepositAddress(rt, bus, customer.accountId);
  expect(rotated).toMatchObject({ outcome: 'applied', body: { retired_address: old } });
  const again = await rotateDepositAddress(rt, bus, customer.accountId);
  expect(again).toMatchObject({ outcome: 'rejected', error: { slug: 'rate_limited' } });

  const headers = signedHeaders(customer.key, 'GET', '/v1/deposit-addresses', '', Math.floor(Date.now() / 1000) - 1);
  const after = await call(base, 'GET', '/v1/deposit-addresses', { headers });
  expect(after.body.data[0].address).toBe(rotated.body!.address);
  expect(after.body.retired).toEqual([{ address: old, retired_at: expect.any(String), credited_until: expect.any(String) }]);
  expect(Date.parse(after.body.retired[0].credited_until) - Date.parse(after.body.retired[0].retired_at)).toBe(30 * 86_400_000);
  expect(after.body.rotation).toEqual({ by: 'support', min_interval_days: 30, max_per_window: 3, window_days: 365, retired_credit_days: 30 });

  const event = await eventually(async () => {
    const events = await readTopic<any>(rt, 'accountEvents');
    return events.find((e) => e.value.accountId === customer.accountId && e.value.type === 'deposit_address.rotated');
  }, 30_000, 'deposit_address.rotated');
  expect(event.value.data).toMatchObject({ address: rotated.body!.address, retired_address: old });
});
