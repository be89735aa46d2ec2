/**
 * The schema registry over HTTPS with basic auth (issue 30, item 1, the registry part). Apicurio, the
 * project's registry, is put behind a TLS-terminating reverse proxy with basic auth (a process of this test,
 * test/support/tls-auth-proxy.ts, its certificate signed by a CA made here with openssl), as a deployment
 * whose registry has neither does. The service started with the proxy's https:// URL, the CA and the
 * credentials registers its schemas and encodes and decodes through it (a sign-up is commands on the log);
 * a wrong password and an untrusted certificate each fail the start, naming the registry and why.
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { OPEN_BUDGETS } from '../../support/identity';
import { startListening } from '../../support/listening-process';
import { makeCertificates } from '../../support/tls-certificates';
import { signUpThroughService, startRefused } from '../../support/service-process';
import { dropWorld, newWorld, openRuntime, type World } from '../../support/world';

const API_PORT = String(Number(process.env.API_PORT ?? 13100) + 67);
const USER = 'energy';
const PASSWORD = 'registry-basic-secret';
let dir: string;
let proxy: ChildProcess;
let world: World;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'registry-tls-'));
  makeCertificates(dir);
  const upstream = new URL(process.env.SCHEMA_REGISTRY_URL!);
  let port: number;
  ({ child: proxy, port } = await startListening(path.join(__dirname, '../../support/tls-auth-proxy.ts'), [
    upstream.origin, path.join(dir, 'server.crt'), path.join(dir, 'server.key'), `${USER}:${PASSWORD}`,
  ]));
  world = newWorld('registrytls', {
    ...OPEN_BUDGETS, SCHEMA_REGISTRY_URL: `https://127.0.0.1:${port}${upstream.pathname}`,
    SCHEMA_REGISTRY_CA_FILE: path.join(dir, 'ca.crt'), SCHEMA_REGISTRY_USERNAME: USER, SCHEMA_REGISTRY_PASSWORD: PASSWORD,
  });
  // The world's schemas are registered through the proxy.
  await (await openRuntime(world)).close();
}, 120_000);
afterAll(async () => {
  if (world) await dropWorld(world);
  proxy?.kill('SIGTERM');
  fs.rmSync(dir, { recursive: true, force: true });
});

test('https:// with the CA and the credentials: the service registers, encodes and decodes through the registry', async () => {
  const { accountId, checks } = await signUpThroughService(world, API_PORT);
  expect(accountId).toMatch(/^acc_/);
  expect(checks.schema_registry).toBe('ok');
}, 120_000);

test('a wrong password fails the start, naming the registry and the reason, not the password', async () => {
  const refused = await startRefused(world, { SCHEMA_REGISTRY_PASSWORD: 'not-the-registry-password' });
  expect(refused.code).toBe(1);
  expect(refused.output).toMatch(/Schema registry at https:\/\/127\.0\.0\.1:\d+ \(SCHEMA_REGISTRY_URL\): credentials refused \(HTTP 401/);
  expect(refused.output).not.toContain('not-the-registry-password');
}, 60_000);

test('an untrusted certificate fails the start, naming the registry and the reason', async () => {
  const refused = await startRefused(world, { SCHEMA_REGISTRY_CA_FILE: path.join(dir, 'other.crt') });
  expect(refused.code).toBe(1);
  expect(refused.output).toMatch(/Schema registry at https:\/\/127\.0\.0\.1:\d+ \(SCHEMA_REGISTRY_URL\): TLS handshake refused: .*certificate/);
}, 60_000);
