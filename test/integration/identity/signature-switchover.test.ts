/**
 * Single-use signatures across the Redis <-> PostgreSQL switch-over (docs/outages.md), with a redis-server
 * of this test's own: a signature first used while Redis answered is still a replay (401 1002) right after
 * Redis goes away (this process's pending write-behind is written before the fallback decides, and every
 * Redis-seen signature reaches used_signatures for the other API processes); one used while Redis was away,
 * or before a Redis restart lost its keys, is still a replay once Redis answers again (copied back on connect).
 */
import { tokenHash } from '../../../services/identity/request-signing';
import { usedSignatures } from '../../../services/api/auth/used-signatures';
import { call, signedHeaders, signUp, startIdentityStack, type Customer, type IdentityStack } from '../../support/identity';
import { privateRedis, type Outageable } from '../../support/private-infra';
import { eventually } from '../../support/world';

// Not the outage test's port (28379): CI runs two files at once. Below the ephemeral range (private-infra.ts).
process.env.OUTAGE_REDIS_PORT ??= '28383';

let redis: Outageable;
let stack: IdentityStack;
let customer: Customer;
let n = 0;
/** Set while this test's Redis is stopped: the teardown starts it again first (a stack stops cleanly with Redis there). */
let redisDown = false;

beforeAll(async () => {
  redis = await privateRedis();
  stack = await startIdentityStack('sigswitch', { REDIS_URL: redis.url, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
  customer = await signUp(stack.base);
}, 120_000);

afterAll(async () => {
  try {
    if (redisDown) await redis.start();
    await stack?.stop();
  } finally {
    await redis?.destroy();
  }
}, 120_000);

/**
 * One signed POST, ready to be presented more than once. Past the account's two webhook endpoints the
 * route refuses it (4xx), but only after the signature was accepted: anything but 401 is a first use.
 */
function signedPost(): { send: () => Promise<{ status: number; code: number | undefined }>; hash: string } {
  const path = '/v1/webhooks';
  const raw = JSON.stringify({ url: `https://127.0.0.1:8443/switchover-${++n}` });
  const headers = signedHeaders(customer.key, 'POST', path, raw);
  return {
    hash: tokenHash(headers['x-api-sign']),
    send: async () => {
      const reply = await call(stack.base, 'POST', path, { raw, headers });
      return { status: reply.status, code: reply.body?.error?.code };
    },
  };
}

const guard = () => usedSignatures(stack.rt);
const stored = async (hash: string) => (await stack.rt.pool.query('SELECT 1 FROM used_signatures WHERE signature_hash = $1', [hash])).rowCount === 1;
const REPLAY = { status: 401, code: 1002 };

test('Redis -> PostgreSQL: a signature Redis accepted is a replay after Redis went away; every one is written behind', async () => {
  await eventually(async () => guard().redisAnswers, 30_000, 'Redis answering');
  const written = signedPost();
  expect((await written.send()).status).not.toBe(401);
  // Used through Redis and presented again at once after Redis is gone (possibly not flushed yet).
  const recent = signedPost();
  expect((await recent.send()).status).not.toBe(401);
  await redis.stop();
  redisDown = true;
  await eventually(async () => stack.rt.redis.status !== 'ready', 30_000, 'the client seeing Redis away');
  expect(guard().redisAnswers).toBe(false);
  expect(await recent.send()).toEqual(REPLAY);
  expect(await written.send()).toEqual(REPLAY);
  // Both are in used_signatures, where the other API processes look (written behind within a flush period).
  expect([await stored(written.hash), await stored(recent.hash)]).toEqual([true, true]);

  // The fallback alone still holds: first use accepted, the repeat refused.
  const during = signedPost();
  expect((await during.send()).status).not.toBe(401);
  expect(await during.send()).toEqual(REPLAY);

  // PostgreSQL -> Redis: the restarted Redis has no keys; once it answers again, signatures used during
  // the outage and before it are still replays, and a new one is single-use through Redis.
  await redis.start();
  redisDown = false;
  await eventually(async () => guard().redisAnswers, 30_000, 'Redis answering again');
  expect(await during.send()).toEqual(REPLAY);
  expect(await recent.send()).toEqual(REPLAY);
  const after = signedPost();
  expect((await after.send()).status).not.toBe(401);
  expect(await after.send()).toEqual(REPLAY);
  // With no fallback asking, the write-behind alone brings it to used_signatures for the other processes.
  await eventually(() => stored(after.hash), 10_000, 'the signature written behind to used_signatures');
}, 120_000);
