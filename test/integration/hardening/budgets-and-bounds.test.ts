/**
 * Issue 31 on the real stack: a far stats range is a quick 400 (item 1); strangers spending a wallet's
 * challenge budget from other IPs do not lock its owner out, and are still stopped (item 2); promo reads
 * and promo challenges spend a per-IP budget before any database or chain read (item 3).
 */
import { newWallet, sign, signedHeaders, signUp, startIdentityStack, type Customer, type IdentityStack } from '../../support/identity';
import { callFrom } from '../../support/from-ip';
import { signedGet } from '../../support/stats';

let stack: IdentityStack;
let owner: Customer;

beforeAll(async () => {
  stack = await startIdentityStack('harden', {
    BUDGET_CHALLENGE_PER_IP_PER_MIN: '10', BUDGET_CHALLENGE_PER_ADDRESS_PER_MIN: '5', BUDGET_PUBLIC_READS_PER_IP_PER_SEC: '4',
  });
  owner = await signUp(stack.base);
});
afterAll(async () => {
  await stack?.stop();
});

/** Waits until at least `ms` are left in the current minute, so a burst sees one budget window. */
async function roomInMinute(ms: number): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < ms) await new Promise((r) => setTimeout(r, left + 50));
}

test('stats: a `to` in year 9999 answers 400 2000 on `to` within 100 ms; a day ahead is still answered', async () => {
  // The route warm (its first answer opens the key cache and the statement plans), then the far range timed.
  expect((await signedGet(stack.base, owner.key, '/v1/account/stats')).status).toBe(200);
  const started = performance.now();
  const far = await signedGet(stack.base, owner.key, '/v1/account/stats?from=2000-01-01T00:00:00Z&to=9999-12-31T00:00:00Z');
  const elapsed = performance.now() - started;
  expect(far.status).toBe(400);
  expect(far.body.error).toMatchObject({ code: 2000, slug: 'invalid_request', details: { field: 'to' } });
  expect(elapsed).toBeLessThan(100);
  const soon = new Date(Date.now() + 23 * 3_600_000).toISOString();
  const near = await signedGet(stack.base, owner.key, `/v1/account/stats?from=2000-01-01T00:00:00Z&to=${soon}`);
  expect(near.status).toBe(200);
  expect(near.body.clamped).toBe(true);
  expect(near.body.series.length).toBeLessThanOrEqual(400);
});

test('strangers spend a wallet\'s challenge budget from other IPs; its owner still signs in; they stay stopped', async () => {
  await roomInMinute(20_000);
  const body = { address: owner.wallet.address, purpose: 'login' };
  // Five stranger IPs, two requests each: the address's budget is five a minute (the owner's own signup
  // challenge may have spent one of this window's).
  const attempts = await Promise.all(Array.from({ length: 10 }, (_, i) => callFrom(`127.0.0.${2 + (i % 5)}`, stack.base, 'POST', '/v1/accounts/challenge', { body })));
  expect(attempts.filter((r) => r.status === 201).length).toBeGreaterThanOrEqual(4);
  expect(attempts.filter((r) => r.status === 201).length).toBeLessThanOrEqual(5);
  const limited = attempts.filter((r) => r.status === 429);
  expect(limited.length).toBe(10 - attempts.filter((r) => r.status === 201).length);
  for (const r of limited) expect(r.body.error).toMatchObject({ code: 1020, details: { budget: 'challenge-address' } });

  // The owner signed up from 127.0.0.1 (a proof passed there): its challenge is issued and the sign-in works.
  const challenge = await callFrom('127.0.0.1', stack.base, 'POST', '/v1/accounts/challenge', { body });
  expect(challenge.status).toBe(201);
  const session = await callFrom('127.0.0.1', stack.base, 'POST', '/v1/session', {
    body: { address: owner.wallet.address, nonce: challenge.body.nonce, signature: sign(challenge.body.message, owner.wallet) },
  });
  expect(session.status).toBe(201);
  expect(session.body.account_id).toBe(owner.accountId);

  // A stranger on a fresh IP is still stopped by the address's budget.
  const later = await callFrom('127.0.0.20', stack.base, 'POST', '/v1/accounts/challenge', { body });
  expect(later.status).toBe(429);
  expect(later.body.error.details.budget).toBe('challenge-address');
});

test('promo challenges spend the per-IP challenge budget before reading the promo or the chain', async () => {
  await roomInMinute(20_000);
  // No promo is set up: each answer is 409 3040, found by a database read; from one IP, the eleventh and
  // twelfth are 429 before it (fresh addresses, so only the IP's budget of 10 is in play).
  const statuses: number[] = [];
  for (let i = 0; i < 12; i++) {
    const wallet = await newWallet();
    statuses.push((await callFrom('127.0.1.1', stack.base, 'POST', '/v1/promo/redeem/challenge', { body: { address: wallet.address } })).status);
  }
  expect(statuses).toEqual([...Array(10).fill(409), 429, 429]);
});

test('GET /v1/promo and the redemption read are budgeted per IP (429 1020 with Retry-After)', async () => {
  for (const path of ['/v1/promo', `/v1/promo/redemptions/${owner.wallet.address}`]) {
    const replies = await Promise.all(Array.from({ length: 12 }, () => callFrom('127.0.2.1', stack.base, 'GET', path)));
    const limited = replies.filter((r) => r.status === 429);
    expect(limited.length).toBeGreaterThanOrEqual(12 - 8);
    for (const r of limited) {
      expect(r.body.error.code).toBe(1020);
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    await new Promise((r) => setTimeout(r, 1_100));
  }
});

test('deep JSON is a 400 2000 naming the body, before any schema, at any depth past the bound', async () => {
  const paths = ['/v1/accounts/challenge', '/v1/orders', '/v1/batches', '/v1/webhooks'];
  const shallow = await postRaw('/v1/orders', '{"receiver":[[[[1]]]]}');
  expect(shallow.body.error.details.field).not.toBe('body');
  for (const depth of [40, 1_000, 2_000, 3_000, 4_000, 50_000]) {
    const deep = '['.repeat(depth) + ']'.repeat(depth);
    for (const path of paths) {
      for (const raw of [`{"address":${deep}}`, `{"items":${deep}}`, `{"items":[{"receiver":${deep}}]}`]) {
        const r = await postRaw(path, raw);
        expect({ path, depth, status: r.status, code: r.body?.error?.code }).toEqual({ path, depth, status: 400, code: 2000 });
      }
    }
  }
});

/** Signed with the owner's key, so a route that authenticates first still reaches its validation. */
async function postRaw(path: string, raw: string) {
  const res = await fetch(stack.base + path, { method: 'POST', headers: { 'content-type': 'application/json', ...signedHeaders(owner.key, 'POST', path, raw) }, body: raw });
  return { status: res.status, body: (await res.json().catch(() => null)) as any };
}

