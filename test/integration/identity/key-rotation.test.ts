/**
 * Secrets at rest (issue 12, item 3): API-key and webhook secrets are sealed under this installation's
 * keys; `rotate-encryption-key` re-seals them under a new key while the old one is still accepted for
 * reading, and afterwards the new key alone opens everything.
 */
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { jsonBody } from '../../../services/api/body';
import { errorHandler } from '../../../services/api/errors';
import { buildDocument } from '../../../services/api/openapi/document';
import { identityRouters } from '../../../services/api/routes/identity';
import { RequestValidator } from '../../../services/api/validate';
import { parseConfig } from '../../../services/platform/config';
import type { Runtime } from '../../../services/runtime';
import { rotateEncryptionKeys } from '../../../services/ops/rotate-encryption-key';
import { webhookSecretBox } from '../../../services/webhooks/secrets';
import { call, signedCall, signUp, startIdentityStack, type IdentityStack } from '../../support/identity';

let stack: IdentityStack;
const servers: Server[] = [];
const oldKeys = { API_KEY_ENCRYPTION_KEY: randomBytes(32).toString('hex'), WEBHOOK_SECRET_KEY: randomBytes(32).toString('hex') };
const newKeys = { API_KEY_ENCRYPTION_KEY: randomBytes(32).toString('hex'), WEBHOOK_SECRET_KEY: randomBytes(32).toString('hex') };

/** The same database and log behind the identity routes of an API started with other keys. */
async function apiWith(env: Record<string, string>): Promise<{ base: string; rt: Runtime }> {
  const rt: Runtime = { ...stack.rt, cfg: { ...parseConfig({ ...stack.world.env, ...env }), topicPrefix: stack.rt.cfg.topicPrefix } };
  const app = express();
  app.locals.rt = rt;
  app.use(jsonBody, ...identityRouters({ rt, bus: stack.bus, validator: new RequestValidator(buildDocument()) }), errorHandler);
  const server: Server = await new Promise((r) => {
    const s = app.listen(0, '127.0.0.1', () => r(s));
  });
  servers.push(server);
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, rt };
}

beforeAll(async () => {
  stack = await startIdentityStack('keyrot', { ...oldKeys, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
});
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  await stack?.stop();
});

test('rotation: old secrets read with the previous key, new ones sealed with the new key, then the new key alone opens all', async () => {
  const before = await signUp(stack.base);
  const hook = await signedCall(stack.base, before.key, 'POST', '/v1/webhooks', { url: 'https://127.0.0.1:8443/hook' });
  expect(hook.status).toBe(201);
  const endpoint = hook.body;
  const sealedBefore = (await stack.rt.pool.query('SELECT secret_enc FROM api_keys WHERE id = $1', [before.key.id])).rows[0].secret_enc;

  // Step 1: every process gets the new key, the old one as *_PREVIOUS.
  const during = await apiWith({ ...newKeys, API_KEY_ENCRYPTION_KEY_PREVIOUS: oldKeys.API_KEY_ENCRYPTION_KEY, WEBHOOK_SECRET_KEY_PREVIOUS: oldKeys.WEBHOOK_SECRET_KEY });
  expect((await signedCall(during.base, before.key, 'GET', '/v1/account')).status).toBe(200);
  const minted = await call(during.base, 'POST', '/v1/api-keys', { body: {}, headers: { authorization: `Bearer ${before.token}` } });
  expect(minted.status).toBe(201);
  const fresh = { id: minted.body.id, secret: minted.body.secret };
  // Sealed under the new key: a process still on the old key alone cannot open it.
  expect((await signedCall(stack.base, fresh, 'GET', '/v1/account')).body.error.code).toBe(1002);

  // Step 2: re-seal; twice is harmless.
  const reports = await rotateEncryptionKeys(stack.rt.pool, during.rt.cfg);
  expect(reports.find((r) => r.table === 'api_keys')).toMatchObject({ unreadable: [] });
  expect(reports.find((r) => r.table === 'api_keys')!.resealed).toBeGreaterThanOrEqual(1);
  expect(reports.find((r) => r.table === 'webhook_endpoints')).toMatchObject({ resealed: 1, current: 0, unreadable: [] });
  const again = await rotateEncryptionKeys(stack.rt.pool, during.rt.cfg);
  expect(again.map((r) => r.resealed)).toEqual([0, 0]);
  const sealedAfter = (await stack.rt.pool.query('SELECT secret_enc FROM api_keys WHERE id = $1', [before.key.id])).rows[0].secret_enc;
  expect(sealedAfter).not.toBe(sealedBefore);

  // Step 3: the previous key dropped; everything still opens, and the old key alone opens nothing.
  const after = await apiWith(newKeys);
  expect((await signedCall(after.base, before.key, 'GET', '/v1/account')).status).toBe(200);
  expect((await signedCall(after.base, fresh, 'GET', '/v1/account')).status).toBe(200);
  expect((await signedCall(stack.base, before.key, 'GET', '/v1/account')).body.error.code).toBe(1002);
  const row = (await stack.rt.pool.query('SELECT secret_sealed FROM webhook_endpoints WHERE id = $1', [endpoint.id])).rows[0];
  expect(webhookSecretBox(after.rt.cfg).open(endpoint.id, row.secret_sealed)).toBe(endpoint.secret);
  expect(() => webhookSecretBox(stack.rt.cfg).open(endpoint.id, row.secret_sealed)).toThrow();
});
