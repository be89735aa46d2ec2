/**
 * Health that means something (issue 30, item 5), on the real stack: readiness holds with Redis away (it
 * is optional, docs/outages.md) and names it down; the chain node's newest block and its age are in the
 * details and a gauge; a wedged processor (its apply transaction blocked on a lock another session holds)
 * shows as stalled in /readyz and role_progress_age_seconds, and recovers once the lock goes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { connect, createServer } from 'node:net';
import pg from 'pg';
import { startIdentityStack, type IdentityStack } from '../../support/identity';

const STALL_MS = 2_000;
let stack: IdentityStack;
/** A Redis of this test's own, stopped once the stack is up (the shared one must stay for the other files). */
let redis: ChildProcess | undefined;

/** A loopback port nothing listens on (bound, then released). */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  await new Promise((r) => server.close(r));
  return port;
}

beforeAll(async () => {
  const port = await deadPort();
  redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const answers = () => new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1', () => (socket.end(), resolve(true)));
    socket.on('error', () => resolve(false));
  });
  await until('private redis', answers, Boolean, 20_000);
  stack = await startIdentityStack('health', { REDIS_URL: `redis://127.0.0.1:${port}/0`, ROLE_STALL_MS: String(STALL_MS) });
  redis.kill('SIGKILL');
  await new Promise((r) => redis!.once('exit', r));
  redis = undefined;
}, 120_000);
afterAll(async () => {
  redis?.kill('SIGKILL');
  await stack?.stop();
});

async function readyz(): Promise<{ status: number; body: any }> {
  const res = await fetch(`${stack.base}/readyz`);
  return { status: res.status, body: await res.json() };
}

async function until<T>(what: string, read: () => Promise<T>, ok: (v: T) => boolean, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  let last = await read();
  while (!ok(last)) {
    if (Date.now() > end) throw new Error(`${what}: still ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 200));
    last = await read();
  }
  return last;
}

const metric = (text: string, line: RegExp) => text.split('\n').find((l) => line.test(l));

test('Redis away: ready (it is optional), reported down; the chain head and its age in the details and a gauge', async () => {
  // Every required dependency answers (a check may time out once on a loaded machine: asked again).
  const { status, body } = await until('readyz', readyz, (r) => r.status === 200);
  expect(status).toBe(200);
  expect(body.ready).toBe(true);
  expect(body.checks).toMatchObject({ kafka: 'ok', schema_registry: 'ok', postgres: 'ok' });
  expect(body.checks.redis).toMatch(/^down: /);
  expect(body.details.chain.block).toBeGreaterThan(0);
  expect(body.details.chain.age_seconds).toBeGreaterThanOrEqual(0);
  expect(body.details.chain.age_seconds).toBeLessThan(60);
  const text = await (await fetch(`${stack.base}/metrics`)).text();
  const age = metric(text, /^chain_head_age_seconds /);
  expect(age).toBeDefined();
  expect(Number(age!.split(' ')[1])).toBeLessThan(60);
});

test('a wedged processor shows as stalled in /readyz and the gauge, and as ok again once it moves', async () => {
  const roleState = async () => (await readyz()).body.details.roles?.['ledger-processor']?.state;
  await until('processor liveness', roleState, (s) => s === 'ok');
  // The processor's slice begins by locking its partition's stored offset (a row created at 0): with every such
  // row locked by another session, the next command leaves it waiting inside its handler (the event loop, every
  // other role and the plain reads of the offsets, as the lag gauge's, carry on).
  const locker = new pg.Client({ connectionString: stack.world.env.DATABASE_URL });
  await locker.connect();
  try {
    const topic = stack.rt.codec.topicName('accountCommands');
    await locker.query('BEGIN');
    await locker.query(
      `INSERT INTO consumer_offsets (consumer_group, topic, partition, next_offset)
       SELECT 'ledger-processor', $1, p, 0 FROM generate_series(0, $2 - 1) AS p ON CONFLICT DO NOTHING`,
      [topic, stack.rt.cfg.TOPIC_PARTITIONS],
    );
    await locker.query("SELECT 1 FROM consumer_offsets WHERE consumer_group = 'ledger-processor' AND topic = $1 FOR UPDATE", [topic]);
    const command = stack.bus.stamp({ type: 'account.create', accountId: 'acc_wedged', brand: stack.rt.cfg.BRAND, network: stack.rt.cfg.NETWORK, ownerAddress: null, displayName: null }, false);
    await stack.bus.append([command]);
    const stalled = await until('stall seen', readyz, (r) => r.body.details.roles?.['ledger-processor']?.state === 'stalled');
    expect(stalled.body.details.roles['ledger-processor'].age_seconds).toBeGreaterThanOrEqual(STALL_MS / 1000);
    // The relay's loop still turns: only the wedged role is named.
    expect(stalled.body.details.roles.relay.state).toBe('ok');
    // Not a reason to take this API instance out of the load balancer.
    expect(stalled.status).toBe(200);
    const text = await (await fetch(`${stack.base}/metrics`)).text();
    const line = metric(text, /^role_progress_age_seconds\{role="ledger-processor"\} /);
    expect(Number(line!.split(' ')[1])).toBeGreaterThanOrEqual(STALL_MS / 1000);
  } finally {
    await locker.query('ROLLBACK');
    await locker.end();
  }
  await until('processor moving again', roleState, (s) => s === 'ok');
  const { rows } = await stack.rt.pool.query("SELECT count(*)::int AS n FROM accounts WHERE id = 'acc_wedged'");
  expect(rows[0].n).toBe(1);
});
