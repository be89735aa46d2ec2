/**
 * Infrastructure of an outage test's own, on ports nobody else uses, so stopping it never disturbs the
 * shared test stack (other engineers' tests): a Kafka broker (infra/kafka/ctl.sh with its own STACK_DIR),
 * a redis-server and a PostgreSQL cluster (initdb, pg_ctl). Each can be stopped and started again.
 * Ports: OUTAGE_KAFKA_PORT (49092, controller +1), OUTAGE_REDIS_PORT (49379), OUTAGE_PG_PORT (49432).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');
const port = (name: string, fallback: number) => Number(process.env[name] ?? fallback);

export interface Outageable {
  /** What the service's config points at (KAFKA_BROKERS, REDIS_URL or DATABASE_URL). */
  url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops for good and removes its data. */
  destroy(): Promise<void>;
}

/** A single-node Kafka of this test; the jars come from the shared stack's cache (read only). */
export async function privateKafka(): Promise<Outageable> {
  const kafkaPort = port('OUTAGE_KAFKA_PORT', 49092);
  const dir = path.join(os.tmpdir(), `outage-kafka-${kafkaPort}`);
  const env = {
    ...process.env,
    KAFKA_BROKERS: `127.0.0.1:${kafkaPort}`, KAFKA_CONTROLLER_PORT: String(kafkaPort + 1), STACK_DIR: dir,
    STACK_CACHE_DIR: process.env.OUTAGE_STACK_CACHE_DIR ?? path.join(ROOT, '.stack/test/cache'),
    KAFKA_HEAP_OPTS: '-Xms64m -Xmx256m',
  };
  const ctl = (cmd: string) => run('bash', [path.join(ROOT, 'infra/kafka/ctl.sh'), cmd], { env, maxBuffer: 1 << 24 }).then(() => undefined);
  await ctl('start');
  return {
    url: `127.0.0.1:${kafkaPort}`,
    stop: () => ctl('stop'),
    start: () => ctl('start'),
    destroy: async () => {
      await ctl('reset');
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A redis-server without persistence: stopping it loses its keys, as losing a cache node would. */
export async function privateRedis(): Promise<Outageable> {
  const redisPort = port('OUTAGE_REDIS_PORT', 49379);
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn('/usr/bin/redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    await waitFor(async () => (await run('redis-cli', ['-p', String(redisPort), 'ping'])).stdout.includes('PONG'), 'redis');
  };
  const stop = async () => {
    const c = child;
    if (!c || c.exitCode !== null) return;
    await new Promise((r) => (c.once('exit', r), c.kill('SIGKILL')));
  };
  await start();
  return { url: `redis://127.0.0.1:${redisPort}/0`, start, stop, destroy: stop };
}

/** A PostgreSQL cluster of this test (run as the postgres user, trust auth on loopback). */
export async function privatePostgres(): Promise<Outageable> {
  const pgPort = port('OUTAGE_PG_PORT', 49432);
  const bin = process.env.OUTAGE_PG_BIN ?? (await pgBin());
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'outage-pg-'));
  fs.chmodSync(dir, 0o777);
  const data = path.join(dir, 'data');
  const asPostgres = (cmd: string, args: string[]) =>
    process.getuid?.() === 0 ? run('runuser', ['-u', 'postgres', '--', path.join(bin, cmd), ...args]) : run(path.join(bin, cmd), args);
  await asPostgres('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  const ctl = (cmd: string, extra: string[] = []) =>
    asPostgres('pg_ctl', ['-D', data, '-l', path.join(dir, 'log'), '-w', '-t', '60', ...extra, cmd]).then(() => undefined);
  const start = () => ctl('start', ['-o', `-p ${pgPort} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`]);
  await start();
  return {
    url: `postgres://postgres@127.0.0.1:${pgPort}/outage`,
    // Immediate: the server goes away as in a crash, open connections break mid-transaction.
    stop: () => ctl('stop', ['-m', 'immediate']),
    start,
    destroy: async () => {
      await ctl('stop', ['-m', 'immediate']).catch(() => undefined);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function pgBin(): Promise<string> {
  const versions = fs.existsSync('/usr/lib/postgresql') ? fs.readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a)) : [];
  for (const v of versions) if (fs.existsSync(`/usr/lib/postgresql/${v}/bin/initdb`)) return `/usr/lib/postgresql/${v}/bin`;
  return '/usr/local/bin';
}

async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} did not start in time`);
}
