/**
 * API-key rows kept in each API process (services/api/auth/key-cache.ts): two API apps on two runtimes
 * of one world; a key used on both is revoked through one, and the very next request on the other is
 * refused (no wait in between). A scope change made straight in the database is in force at once; while
 * an instance's listening connection is down it serves nothing from memory, and once it is back it keeps
 * rows again.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { jsonBody } from '../../../services/api/body';
import { errorHandler } from '../../../services/api/errors';
import { buildDocument } from '../../../services/api/openapi/document';
import { identityRouters } from '../../../services/api/routes/identity';
import { ordersRouter } from '../../../services/api/routes/orders';
import { RequestValidator } from '../../../services/api/validate';
import { apiKeyCache, KEY_CACHE_APPLICATION } from '../../../services/api/auth/key-cache';
import type { CommandBus } from '../../../services/platform/command-bus';
import type { Runtime } from '../../../services/runtime';
import { call, sessionHeaders, signedCall, signIn, signUp, startIdentityStack, type Customer, type IdentityStack, type Session } from '../../support/identity';
import { eventually, openBus, openRuntime } from '../../support/world';

let stack: IdentityStack;
let other: { rt: Runtime; bus: CommandBus; server: Server; base: string };
let customer: Customer;
let owner: Session;

beforeAll(async () => {
  stack = await startIdentityStack('keycache');
  const rt = await openRuntime(stack.world);
  const bus = await openBus(rt);
  // The routes this test calls, on the second runtime (createApp registers process-wide metrics once).
  const validator = new RequestValidator(buildDocument());
  const app = express();
  app.locals.rt = rt;
  app.use(jsonBody, ...identityRouters({ rt, bus, validator }), ordersRouter({ rt, bus, validator }), errorHandler);
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  other = { rt, bus, server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
  customer = await signUp(stack.base);
  owner = await signIn(stack.base, customer.wallet);
});

afterAll(async () => {
  if (other) {
    await new Promise((r) => other.server.close(r));
    await other.bus.stop();
    await other.rt.close();
  }
  await stack?.stop();
});

async function newKey(): Promise<{ id: string; secret: string }> {
  const res = await call(stack.base, 'POST', '/v1/api-keys', { body: {}, headers: sessionHeaders(owner) });
  expect(res.status).toBe(201);
  return { id: res.body.id, secret: res.body.secret };
}

async function revokeThroughFirst(key: { id: string }): Promise<void> {
  expect((await call(stack.base, 'DELETE', `/v1/api-keys/${key.id}`, { headers: sessionHeaders(owner) })).status).toBe(204);
}

/** Both instances answer the key, and both keep its row (their listening connections are up). */
async function usedOnBoth(key: { id: string; secret: string }): Promise<void> {
  // The first signed request of an instance opens its listening connection (until it is up, rows are read).
  for (const base of [stack.base, other.base]) expect((await signedCall(base, key, 'GET', '/v1/account')).status).toBe(200);
  for (const rt of [stack.rt, other.rt]) await eventually(async () => apiKeyCache(rt).serving, 30_000, 'the key cache listening');
  for (const base of [stack.base, other.base]) {
    expect((await signedCall(base, key, 'GET', '/v1/account')).status).toBe(200);
    expect((await signedCall(base, key, 'GET', '/v1/account')).status).toBe(200);
  }
  for (const rt of [stack.rt, other.rt]) expect(apiKeyCache(rt).size).toBeGreaterThan(0);
}

test('a key revoked through one instance is refused by the other on the very next request', async () => {
  const key = await newKey();
  await usedOnBoth(key);
  await revokeThroughFirst(key);
  const next = await signedCall(other.base, key, 'GET', '/v1/account');
  expect(next.status).toBe(401);
  expect(next.body.error.code).toBe(1002);
  expect((await signedCall(stack.base, key, 'GET', '/v1/account')).body.error.code).toBe(1002);
  // The other key of the account is untouched.
  expect((await signedCall(other.base, customer.key, 'GET', '/v1/account')).status).toBe(200);
});

test('a scope change written straight into the database is in force on the next request', async () => {
  const key = await newKey();
  await usedOnBoth(key);
  expect((await signedCall(other.base, key, 'GET', '/v1/orders')).status).toBe(200);
  await stack.rt.pool.query("UPDATE api_keys SET scopes = '{account.read}' WHERE id = $1", [key.id]);
  const next = await signedCall(other.base, key, 'GET', '/v1/orders');
  expect(next.status).toBe(403);
  expect(next.body.error.code).toBe(1015);
  expect((await signedCall(other.base, key, 'GET', '/v1/account')).status).toBe(200);
});

test('while the listening connection is down nothing is served from memory; once back, rows are kept again', async () => {
  const key = await newKey();
  await usedOnBoth(key);
  // Every key-cache connection of this world's database cut (both instances).
  const cut = await stack.rt.pool.query(
    'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()', [KEY_CACHE_APPLICATION],
  );
  expect(cut.rowCount).toBe(2);
  await revokeThroughFirst(key);
  expect((await signedCall(other.base, key, 'GET', '/v1/account')).body.error.code).toBe(1002);
  expect((await signedCall(stack.base, key, 'GET', '/v1/account')).body.error.code).toBe(1002);

  const fresh = await newKey();
  await usedOnBoth(fresh);
  await revokeThroughFirst(fresh);
  expect((await signedCall(other.base, fresh, 'GET', '/v1/account')).body.error.code).toBe(1002);
});
