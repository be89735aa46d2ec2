/**
 * PostgreSQL over TLS (issue 30, item 1, the PostgreSQL part): a cluster of this test's own with ssl=on and
 * password authentication, its certificate signed by a CA made here with openssl. The service started with
 * DATABASE_URL `sslmode=verify-full&sslrootcert=<ca>` connects over TLS (pg_stat_ssl says so); an untrusted
 * certificate and a wrong password each fail the start, naming the connection and why.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { entryArgs } from '../../support/built-entry';
import { privatePostgres, type Outageable } from '../../support/private-infra';
import { startService } from '../../support/service-process';
import { dropWorld, newWorld, type World } from '../../support/world';
import { spawn } from 'node:child_process';

/** Below the ephemeral range, beside the outage tests' 28432 (+100: this engineer's range on a shared machine). */
const PG_PORT = Number(process.env.TLS_PG_PORT ?? 28532);
const PASSWORD = 'tls-test-secret';
let server: Outageable & { dir: string };
let world: World;
let certs: string;

function openssl(args: string[]): void {
  execFileSync('openssl', args, { stdio: 'ignore' });
}

/** A CA, a server certificate it signs for 127.0.0.1, and a second CA that signed nothing. */
function makeCertificates(dir: string): void {
  openssl(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', path.join(dir, 'ca.key'), '-out', path.join(dir, 'ca.crt'), '-days', '2', '-subj', '/CN=energy test CA']);
  openssl(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', path.join(dir, 'other.key'), '-out', path.join(dir, 'other.crt'), '-days', '2', '-subj', '/CN=untrusted CA']);
  openssl(['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', path.join(dir, 'server.key'), '-out', path.join(dir, 'server.csr'), '-subj', '/CN=127.0.0.1']);
  fs.writeFileSync(path.join(dir, 'san.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  openssl(['x509', '-req', '-in', path.join(dir, 'server.csr'), '-CA', path.join(dir, 'ca.crt'), '-CAkey', path.join(dir, 'ca.key'), '-CAcreateserial', '-out', path.join(dir, 'server.crt'), '-days', '2', '-extfile', path.join(dir, 'san.ext')]);
  fs.chmodSync(path.join(dir, 'server.key'), 0o600);
}

beforeAll(async () => {
  server = await privatePostgres({
    port: PG_PORT,
    initdb: (dir) => ['--auth-local=trust', '--auth-host=scram-sha-256', `--pwfile=${path.join(dir, 'pw')}`],
    prepare: (dir, owned) => {
      certs = dir;
      makeCertificates(dir);
      fs.writeFileSync(path.join(dir, 'pw'), PASSWORD);
      for (const f of ['server.key', 'server.crt', 'pw']) owned(path.join(dir, f));
    },
    server: (dir) => `-c ssl=on -c ssl_cert_file=${path.join(dir, 'server.crt')} -c ssl_key_file=${path.join(dir, 'server.key')}`,
  });
  world = newWorld('pgtls');
}, 180_000);
afterAll(async () => {
  await server?.destroy();
  if (world) await dropWorld(world).catch(() => undefined);
});

const urlWith = (password: string, ca: string) =>
  `postgres://postgres:${password}@127.0.0.1:${PG_PORT}/energy_pgtls?sslmode=verify-full&sslrootcert=${encodeURIComponent(path.join(certs, ca))}`;

function startRefused(databaseUrl: string): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [...entryArgs('services/main.ts', ['services', 'topics'], ['--import', 'tsx']), '--roles', 'api'], {
    cwd: path.resolve(__dirname, '../../..'), env: { ...world.env, DATABASE_URL: databaseUrl, API_PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, output })));
}

test('verify-full with the CA: the service starts and its connections are TLS', async () => {
  const url = urlWith(PASSWORD, 'ca.crt');
  const service = startService(world, 'api', { DATABASE_URL: url, API_PORT: '0' });
  try {
    await service.ready;
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const { rows } = await client.query(
      "SELECT count(*)::int AS n, bool_and(s.ssl) AS tls FROM pg_stat_activity a JOIN pg_stat_ssl s USING (pid) WHERE a.application_name = 'energy-rental'",
    );
    await client.end();
    expect(rows[0].n).toBeGreaterThan(0);
    expect(rows[0].tls).toBe(true);
  } finally {
    await service.kill();
  }
}, 180_000);

test('an untrusted certificate fails the start, naming PostgreSQL and the reason', async () => {
  const refused = await startRefused(urlWith(PASSWORD, 'other.crt'));
  expect(refused.code).toBe(1);
  expect(refused.output).toMatch(/PostgreSQL at 127\.0\.0\.1:\d+\/energy_pgtls \(DATABASE_URL\): .*certificate/);
}, 60_000);

test('a wrong password fails the start, naming PostgreSQL and the reason', async () => {
  const refused = await startRefused(urlWith('not-the-password', 'ca.crt'));
  expect(refused.code).toBe(1);
  expect(refused.output).toMatch(/PostgreSQL at 127\.0\.0\.1:\d+\/energy_pgtls \(DATABASE_URL\): password authentication failed/);
  expect(refused.output).not.toContain('not-the-password');
}, 60_000);
