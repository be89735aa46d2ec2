/**
 * PostgreSQL over TLS (issue 30, item 1, the PostgreSQL part): a cluster of this test's own with ssl=on and
 * password authentication, its certificate signed by a CA made here with openssl. The service started with
 * DATABASE_URL `sslmode=verify-full&sslrootcert=<ca>` connects over TLS (pg_stat_ssl says so); an untrusted
 * certificate and a wrong password each fail the start, naming the connection and why.
 */
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { makeCertificates } from '../../support/tls-certificates';
import { privatePostgres, type Outageable } from '../../support/private-infra';
import { startRefused, startService } from '../../support/service-process';
import { dropWorld, newWorld, type World } from '../../support/world';

/** Below the ephemeral range, beside the outage tests' 28432 (+100: this engineer's range on a shared machine). */
const PG_PORT = Number(process.env.TLS_PG_PORT ?? 28532);
const PASSWORD = 'tls-test-secret';
let server: Outageable & { dir: string };
let world: World;
let certs: string;

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
  const refused = await startRefused(world, { DATABASE_URL: urlWith(PASSWORD, 'other.crt') });
  expect(refused.code).toBe(1);
  expect(refused.output).toMatch(/PostgreSQL at 127\.0\.0\.1:\d+\/energy_pgtls \(DATABASE_URL\): .*certificate/);
}, 60_000);

test('a wrong password fails the start, naming PostgreSQL and the reason', async () => {
  const refused = await startRefused(world, { DATABASE_URL: urlWith('not-the-password', 'ca.crt') });
  expect(refused.code).toBe(1);
  expect(refused.output).toMatch(/PostgreSQL at 127\.0\.0\.1:\d+\/energy_pgtls \(DATABASE_URL\): password authentication failed/);
  expect(refused.output).not.toContain('not-the-password');
}, 60_000);
