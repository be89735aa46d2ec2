/**
 * The API's start-up warm-up (services/api/warm-up.ts) on the real stack: after it, the pool holds
 * DATABASE_POOL_MIN connections (and keeps them: pg-pool's `min`), the API-key cache listens, the signature
 * guard answers from Redis, and the producer is connected, all before the first request. Then the first
 * signed request is served as the hundredth is: its key row kept in the cache, its signature answered by
 * Redis. Several warm-ups at once (API workers of one machine) each end warm. Nothing is written.
 */
import { apiKeyCache, KEY_CACHE_APPLICATION } from '../../../services/api/auth/key-cache';
import { usedSignatures } from '../../../services/api/auth/used-signatures';
import { warmUpApi } from '../../../services/api/warm-up';
import { signedCall, startIdentityStack, signUp, type IdentityStack } from '../../support/identity';
import { openRuntime } from '../../support/world';
import type { Runtime } from '../../../services/runtime';

const POOL_MIN = 3;
let stack: IdentityStack;
const opened: Runtime[] = [];

beforeAll(async () => {
  stack = await startIdentityStack('apiwarmup', { DATABASE_POOL_MIN: String(POOL_MIN) });
});

afterAll(async () => {
  await Promise.allSettled(opened.map((rt) => rt.close()));
  await stack?.stop();
});

async function fresh(): Promise<Runtime> {
  const rt = await openRuntime(stack.world);
  opened.push(rt);
  return rt;
}

test('a fresh runtime: cold before the warm-up, warm after it, with nothing written', async () => {
  const rt = await fresh();
  expect(rt.pool.options.min).toBe(POOL_MIN);
  expect(apiKeyCache(rt).serving).toBe(false);
  const { rows: [before] } = await rt.pool.query('SELECT (SELECT count(*) FROM command_results)::int AS results, (SELECT count(*) FROM used_signatures)::int AS signatures');

  const outcome = await warmUpApi(rt);

  expect(outcome).toEqual({ postgres: 'ok', api_key_cache: 'ok', used_signatures: 'ok', kafka_producer: 'ok', batch_path: 'ok' });
  expect(rt.pool.totalCount).toBeGreaterThanOrEqual(POOL_MIN);
  expect(rt.pool.idleCount).toBeGreaterThanOrEqual(POOL_MIN);
  expect(apiKeyCache(rt).serving).toBe(true);
  expect(usedSignatures(rt).redisAnswers).toBe(true);
  const { rows: listening } = await rt.pool.query(
    'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1', [KEY_CACHE_APPLICATION],
  );
  expect(listening[0].n).toBeGreaterThanOrEqual(1);
  const { rows: [after] } = await rt.pool.query('SELECT (SELECT count(*) FROM command_results)::int AS results, (SELECT count(*) FROM used_signatures)::int AS signatures');
  expect(after).toEqual(before);
});

test('after the warm-up the first signed request is served from the key cache and Redis', async () => {
  const customer = await signUp(stack.base);
  // The stack's own runtime was never warmed: warm it now, as the api role does before it listens.
  const cache = apiKeyCache(stack.rt);
  await warmUpApi(stack.rt);
  expect(cache.serving).toBe(true);
  const kept = cache.size;
  const res = await signedCall(stack.base, customer.key, 'POST', '/v1/batches/bat_000000000000000000000000/cancel');
  expect(res.status).toBe(404); // authenticated (a bad signature answers 401), then no such batch
  expect(cache.size).toBe(kept + 1); // read once, kept: the next request of this key is served from memory
  expect(usedSignatures(stack.rt).redisAnswers).toBe(true);
});

test('warm-ups at once (API workers starting together) each end warm', async () => {
  const runtimes = await Promise.all([fresh(), fresh(), fresh()]);
  const outcomes = await Promise.all(runtimes.map((rt) => warmUpApi(rt)));
  for (const [k, rt] of runtimes.entries()) {
    expect(Object.values(outcomes[k]).every((o) => o === 'ok')).toBe(true);
    expect(rt.pool.idleCount).toBeGreaterThanOrEqual(POOL_MIN);
    expect(apiKeyCache(rt).serving).toBe(true);
  }
});
