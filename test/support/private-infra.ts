/**
 * Infrastructure of an outage test's own, on ports nobody else uses, so stopping it never disturbs the
 * shared test stack (other engineers' tests): a Kafka broker (infra/kafka/ctl.sh with its own STACK_DIR),
 * a redis-server and a PostgreSQL cluster (initdb, pg_ctl). Each can be stopped and started again.
 * Ports: OUTAGE_KAFKA_PORT (28092, controller +1), OUTAGE_REDIS_PORT (28379), OUTAGE_PG_PORT (28432).
 *
 * The ports lie below the kernel's ephemeral range (Linux: 32768-60999): while an instance is stopped,
 * a port inside that range is free for the kernel to give to any outgoing connection on the machine as
 * its local port (or to one of our own clients reconnecting to it, which then connects to itself), and
 * the instance cannot bind it again when started. That is how the Kafka test failed after its broker's
 * restart with the old 49092. A port inside the range is refused (portOutsideEphemeralRange).
 *
 * Every call to a control program is bounded (execFile's timeout) and fails with what it was doing.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');
const port = (name: string, fallback: number) => portOutsideEphemeralRange(name, Number(process.env[name] ?? fallback));

/** The kernel's range of local ports for outgoing connections (Linux; elsewhere the IANA one). */
export function ephemeralRange(): [number, number] {
  try {
    const [low, high] = fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (low > 0 && high >= low) return [low, high];
  } catch {
    // not Linux
  }
  return [49152, 65535];
}

export function portOutsideEphemeralRange(name: string, value: number): number {
  const [low, high] = ephemeralRange();
  if (value >= low && value <= high) {
    throw new Error(`${name}=${value} lies in the ephemeral port range ${low}-${high}: while the instance is stopped, an outgoing connection may take it and the restart cannot bind it; choose a port below ${low}`);
  }
  return value;
}

/** Runs a control program, bounded; a failure names what was asked and shows the end of its output. */
async function control(what: string, file: string, args: string[], timeoutMs: number, options: { env?: NodeJS.ProcessEnv } = {}): Promise<void> {
  try {
    await run(file, args, { ...options, timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 1 << 24 });
  } catch (err) {
    const e = err as { killed?: boolean; stdout?: string; stderr?: string; message: string };
    const tail = `${e.stdout ?? ''}${e.stderr ?? ''}`.trim().split('\n').slice(-15).join('\n');
    throw new Error(`${what}: ${e.killed ? `no answer within ${timeoutMs} ms` : e.message.split('\n')[0]}\n${tail}`);
  }
}

export interface Outageable {
  /** What the service's config points at (KAFKA_BROKERS, REDIS_URL or DATABASE_URL). */
  url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops for good and removes its data. */
  destroy(): Promise<void>;
}

/** A single-node Kafka of this test; the jars come from the stack's cache (infra/env/lib.sh: per user, read only here). */
export async function privateKafka(): Promise<Outageable> {
  const kafkaPort = port('OUTAGE_KAFKA_PORT', 28092);
  const controllerPort = portOutsideEphemeralRange('OUTAGE_KAFKA_PORT + 1 (controller)', kafkaPort + 1);
  const dir = path.join(os.tmpdir(), `outage-kafka-${kafkaPort}`);
  const env = {
    ...process.env,
    KAFKA_BROKERS: `127.0.0.1:${kafkaPort}`, KAFKA_CONTROLLER_PORT: String(controllerPort), STACK_DIR: dir,
    ...(process.env.OUTAGE_STACK_CACHE_DIR ? { STACK_CACHE_DIR: process.env.OUTAGE_STACK_CACHE_DIR } : {}),
    KAFKA_HEAP_OPTS: '-Xms64m -Xmx256m', KAFKA_START_TIMEOUT: '120',
  };
  // ctl.sh bounds its own waits (start: KAFKA_START_TIMEOUT, then 10 s to stop what did not answer; stop: 60 s
  // grace, then SIGKILL); the margin covers the JVM storage format of a first start.
  const ctl = (cmd: string) => control(`kafka ${cmd} (127.0.0.1:${kafkaPort})`, 'bash', [path.join(ROOT, 'infra/kafka/ctl.sh'), cmd], 150_000, { env });
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
  const redisPort = port('OUTAGE_REDIS_PORT', 28379);
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn('/usr/bin/redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    await waitFor(async () => (await run('redis-cli', ['-p', String(redisPort), 'ping'], { timeout: 2_000 })).stdout.includes('PONG'), `redis on ${redisPort}`);
  };
  const stop = async () => {
    const c = child;
    if (!c || c.exitCode !== null) return;
    c.kill('SIGKILL');
    await waitFor(async () => c.exitCode !== null || c.signalCode !== null, `redis (pid ${c.pid}) to exit after SIGKILL`, 10_000);
  };
  await start();
  return { url: `redis://127.0.0.1:${redisPort}/0`, start, stop, destroy: stop };
}

/** A PostgreSQL cluster of this test (run as the postgres user, trust auth on loopback). */
export async function privatePostgres(options: { port?: number; initdb?: (dir: string) => string[]; server?: (dir: string) => string; prepare?: (dir: string, owned: (file: string) => void) => void } = {}): Promise<Outageable & { dir: string }> {
  const pgPort = options.port ?? port('OUTAGE_PG_PORT', 28432);
  const bin = process.env.OUTAGE_PG_BIN ?? (await pgBin());
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'outage-pg-'));
  fs.chmodSync(dir, 0o777);
  const data = path.join(dir, 'data');
  // pg_ctl -t bounds its own wait; the margin is for the process start on a loaded machine.
  const asPostgres = (what: string, cmd: string, args: string[]) =>
    process.getuid?.() === 0
      ? control(what, 'runuser', ['-u', 'postgres', '--', path.join(bin, cmd), ...args], 90_000)
      : control(what, path.join(bin, cmd), args, 90_000);
  // `prepare` writes files the server reads (certificates, a password file) into `dir`, owned as it needs them.
  const owned = (file: string) => {
    if (process.getuid?.() !== 0) return;
    const { uid, gid } = postgresIds();
    fs.chownSync(file, uid, gid);
  };
  options.prepare?.(dir, owned);
  await asPostgres(`initdb ${data}`, 'initdb', ['-D', data, '-U', 'postgres', ...(options.initdb?.(dir) ?? ['--auth=trust']), '-E', 'UTF8', '--no-sync']);
  const ctl = (cmd: string, extra: string[] = []) =>
    asPostgres(`pg_ctl ${cmd} (port ${pgPort})`, 'pg_ctl', ['-D', data, '-l', path.join(dir, 'log'), '-w', '-t', '60', ...extra, cmd]);
  const start = () => ctl('start', ['-o', `-p ${pgPort} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200 ${options.server?.(dir) ?? ''}`]);
  await start();
  return {
    dir,
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

/** The postgres user's ids (the cluster runs as it when the tests run as root). */
function postgresIds(): { uid: number; gid: number } {
  const line = fs.readFileSync('/etc/passwd', 'utf8').split('\n').find((l) => l.startsWith('postgres:'));
  if (!line) throw new Error('no postgres user');
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
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
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}
