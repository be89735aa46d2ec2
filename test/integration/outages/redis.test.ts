/**
 * Redis (this test's own redis-server) stopped for 15 s and started again while orders, deposits and
 * webhooks flow: answers fall back to PostgreSQL (no 5xx, orders still accepted), a signed POST is still
 * single-use (used_signatures), budgets still hold (counted in the API process), and afterwards nothing is
 * lost or applied twice.
 */
import { spendBudget } from '../../../services/api/auth/budget';
import { call, signedHeaders } from '../../support/identity';
import { privateRedis } from '../../support/private-infra';
import { outageTest, summary } from '../../support/outage-stack';

outageTest('Redis away 15 s: answers from PostgreSQL, signatures single-use, budgets held, nothing lost', {
  label: 'redisout', part: 'redis',
  take: { open: privateRedis, env: (url) => ({ REDIS_URL: url }) },
  leadMs: 3_000, awayMs: 15_000, afterMs: 5_000,
  whileAway: async ({ stack, load }) => {
    await new Promise((r) => setTimeout(r, 2_000));
    // A signed POST presented twice while Redis is away: the second is a replay (1002), from PostgreSQL.
    const customer = load.customers[0];
    const raw = JSON.stringify({ resource: 'energy', amount: 30_000, tier: '1h', receiver: customer.address, client_order_id: 'redis-replay' });
    const headers = signedHeaders(customer.key, 'POST', '/v1/orders', raw, Math.floor(Date.now() / 1000));
    const first = await call(stack.base, 'POST', '/v1/orders', { raw, headers });
    const again = await call(stack.base, 'POST', '/v1/orders', { raw, headers });
    expect(first.status).toBe(201);
    expect([again.status, again.body.error.code]).toEqual([401, 1002]);
    // A budget of 2 per minute refuses the third spend without Redis too.
    await spendBudget(stack.rt, 'outage-test', 'subject', 2, 60_000);
    await spendBudget(stack.rt, 'outage-test', 'subject', 2, 60_000);
    await expect(spendBudget(stack.rt, 'outage-test', 'subject', 2, 60_000)).rejects.toMatchObject({ slug: 'rate_limited' });
  },
}, ({ load, down, back }) => {
  const during = load.answers.filter((a) => a.at >= down && a.at < back);
  console.log(`redis outage: during ${summary(during)}`);
  // Both customers' orders accepted while Redis is away (a count of answers would judge the machine's speed).
  expect(new Set(during.map((a) => a.clientOrderId.replace(/-\d+$/, ''))).size).toBe(2);
  expect(during.filter((a) => a.status !== 201 && a.status !== 200)).toEqual([]);
  expect(load.answers.filter((a) => a.status >= 500)).toEqual([]);
});
