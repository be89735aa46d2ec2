/**
 * Redis over TLS (issue 30, item 1, the Redis part): a redis-server of this test's own with only a TLS port
 * and a password, its certificate signed by a CA made here with openssl. The service started with
 * `rediss://:<password>@...` and REDIS_TLS_CA_FILE uses it (readiness names Redis ok); an untrusted
 * certificate and a wrong password each fail the start, naming Redis and why.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { connect } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { makeCertificates } from '../../support/tls-certificates';
import { startRefused, startService } from '../../support/service-process';
import { dropWorld, newWorld, openRuntime, type World } from '../../support/world';

/** Below the ephemeral range; the outage tests' Redis is 28379 (+100: this engineer's range). */
const TLS_PORT = Number(process.env.TLS_REDIS_PORT ?? 28479);
const API_PORT = String(Number(process.env.API_PORT ?? 13100) + 54);
const PASSWORD = 'tls-redis-secret';
let dir: string;
let redis: ChildProcess;
let world: World;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'redis-tls-'));
  const f = (n: string) => path.join(dir, n);
  makeCertificates(dir);
  redis = spawn('redis-server', [
    '--port', '0', '--tls-port', String(TLS_PORT), '--bind', '127.0.0.1', '--tls-cert-file', f('server.crt'), '--tls-key-file', f('server.key'),
    '--tls-ca-cert-file', f('ca.crt'), '--tls-auth-clients', 'no', '--requirepass', PASSWORD, '--save', '', '--appendonly', 'no',
  ], { stdio: 'ignore' });
  for (let i = 0; i < 100; i++) {
    const up = await new Promise<boolean>((resolve) => {
      const s = connect(TLS_PORT, '127.0.0.1', () => (s.end(), resolve(true)));
      s.on('error', () => resolve(false));
    });
    if (up) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  world = newWorld('redistls');
  await (await openRuntime(world)).close();
}, 120_000);
afterAll(async () => {
  redis?.kill('SIGKILL');
  fs.rmSync(dir, { recursive: true, force: true });
  await dropWorld(world);
});

const redisUrl = (password: string) => `rediss://:${password}@127.0.0.1:${TLS_PORT}/0`;

test('rediss:// with the CA and the password: the service starts and reads Redis over TLS', async () => {
  const service = startService(world, 'api', { REDIS_URL: redisUrl(PASSWORD), REDIS_TLS_CA_FILE: path.join(dir, 'ca.crt'), API_PORT });
  try {
    await service.ready;
    let body: { checks?: Record<string, string> } = {};
    for (let i = 0; i < 50 && body.checks?.redis !== 'ok'; i++) {
      body = await fetch(`http://127.0.0.1:${API_PORT}/readyz`).then((r) => r.json() as Promise<typeof body>, () => ({}));
      if (body.checks?.redis !== 'ok') await new Promise((r) => setTimeout(r, 200));
    }
    // The server has no plain port: an answer from Redis came over TLS.
    expect(body.checks?.redis).toBe('ok');
  } finally {
    await service.kill();
  }
}, 120_000);

test('an untrusted certificate fails the start, naming Redis and the reason', async () => {
  const refused = await startRefused(world, { REDIS_URL: redisUrl(PASSWORD), REDIS_TLS_CA_FILE: path.join(dir, 'other.crt') });
  expect(refused.code).toBe(1);
  expect(refused.output).toMatch(/Redis at 127\.0\.0\.1:\d+ \(REDIS_URL\): .*certificate/i);
}, 60_000);

test('a wrong password fails the start, naming Redis and the reason', async () => {
  const refused = await startRefused(world, { REDIS_URL: redisUrl('not-the-password'), REDIS_TLS_CA_FILE: path.join(dir, 'ca.crt') });
  expect(refused.code).toBe(1);
  expect(refused.output).toMatch(/Redis at 127\.0\.0\.1:\d+ \(REDIS_URL\): .*(WRONGPASS|invalid username-password)/);
  expect(refused.output).not.toContain('not-the-password');
}, 60_000);
