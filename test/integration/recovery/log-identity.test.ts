/**
 * A database knows its log (issue 15, item 3), on the real stack: the first start stamps the database with
 * the Kafka cluster id and the topic ids; a role started against a database built from another log, a
 * recreated topic, or with another NETWORK refuses to run and says how to restore.
 */
import { Kafka, logLevel } from 'kafkajs';
import { devDefaults } from '../../../services/platform/config';
import { createPool } from '../../../services/platform/db/pool';
import { checkOrStamp, readStamp } from '../../../services/platform/log-identity';
import { createRuntime, currentLogIdentity, type Runtime } from '../../../services/runtime';
import { startService } from '../../support/service-process';
import { dropWorld, newWorld, openRuntime, type World } from '../../support/world';

const kafka = new Kafka({ brokers: process.env.KAFKA_BROKERS!.split(','), logLevel: logLevel.NOTHING });
const worlds: Array<{ world: World; rt?: Runtime }> = [];

async function opened(label: string): Promise<{ world: World; rt: Runtime }> {
  const world = newWorld(label);
  const entry = { world, rt: await openRuntime(world) };
  worlds.push(entry);
  return entry;
}

async function listTopics(): Promise<string[]> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    return await admin.listTopics();
  } finally {
    await admin.disconnect();
  }
}

afterAll(async () => {
  for (const { world, rt } of worlds) {
    await dropWorld(world, rt).catch(async () => dropWorld(world));
    await rt?.close();
  }
});

test('the first start stamps the database with the cluster id (as kafkajs reports it) and each topic id', async () => {
  const { world, rt } = await opened('stamp');
  const stamp = await readStamp(rt.pool);
  const admin = kafka.admin();
  await admin.connect();
  const { clusterId } = await admin.describeCluster();
  await admin.disconnect();
  expect(stamp?.network).toBe('nile');
  expect(stamp?.clusterId).toBe(clusterId);
  expect(stamp?.topics.accountCommands.topic).toBe(`${world.cfg.topicPrefix}account-commands`);
  const ids = Object.values(stamp!.topics).map((t) => t.id);
  for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  expect(ids).not.toContain('00000000-0000-0000-0000-000000000000');
  expect(new Set(ids).size).toBe(ids.length);
  // A second start on the same log opens it and leaves the stamp as it was.
  const again = await createRuntime(world.cfg);
  expect(await readStamp(again.pool)).toEqual(stamp);
  await again.close();
});

test('processes starting at once on an empty database agree on one stamp', async () => {
  const world = newWorld('stampconc');
  // Topics, schemas and migrations first, unstamped: the stamp race alone is what is tested here (the
  // whole cold start at once is the next test).
  const rt = await createRuntime(world.cfg, { logIdentity: 'skip' });
  worlds.push({ world, rt });
  expect(await readStamp(rt.pool)).toBeNull();
  const identity = await currentLogIdentity(world.cfg);
  const pools = [1, 2, 3, 4].map(() => createPool(world.cfg.DATABASE_URL, 1));
  try {
    const outcomes = await Promise.all(pools.map((p) => checkOrStamp(p, identity, world.cfg.DATABASE_URL)));
    expect(outcomes.filter((o) => o.stamped).length).toBeGreaterThanOrEqual(1);
  } finally {
    await Promise.all(pools.map((p) => p.end()));
  }
  const { rows } = await rt.pool.query('SELECT count(*)::int AS n FROM log_identity');
  expect(rows[0].n).toBe(1);
  expect(await readStamp(rt.pool)).toEqual(identity);
});

test('several roles started at once against no database and no topics all start: one migration run, one stamp', async () => {
  const world = newWorld('coldstart');
  // Nothing exists yet: the database, its migrations, the topics, the schemas and the stamp are all first.
  const outcomes = await Promise.allSettled([1, 2, 3, 4].map(() => createRuntime(world.cfg)));
  const started = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
  worlds.push({ world, rt: started[0] });
  try {
    expect(outcomes.map((o) => (o.status === 'rejected' ? String(o.reason) : 'started'))).toEqual(['started', 'started', 'started', 'started']);
    const { rows } = await started[0].pool.query('SELECT (SELECT count(*)::int FROM log_identity) AS stamps, (SELECT count(*)::int FROM pgmigrations) AS migrations, (SELECT count(DISTINCT name)::int FROM pgmigrations) AS distinct_migrations');
    expect(rows[0].stamps).toBe(1);
    expect(rows[0].migrations).toBe(rows[0].distinct_migrations);
    expect(await readStamp(started[0].pool)).toEqual(await currentLogIdentity(world.cfg));
  } finally {
    await Promise.all(started.slice(1).map((rt) => rt.close()));
  }
});

test('a role started against a database built from another log refuses, naming both logs and how to restore', async () => {
  const { world: a, rt } = await opened('loga');
  const stamp = (await readStamp(rt.pool))!;
  const b = newWorld('logb');
  worlds.push({ world: b });
  const proc = startService(b, 'processor', { DATABASE_URL: a.cfg.DATABASE_URL });
  await expect(proc.ready).rejects.toThrow(/exited early: 1/);
  const out = proc.output();
  expect(out).toContain(`database ${new URL(a.cfg.DATABASE_URL).pathname.slice(1)} was built from another log`);
  expect(out).toContain(`database built from ${a.cfg.topicPrefix}account-commands (id ${stamp.topics.accountCommands.id}), this process reads ${b.cfg.topicPrefix}account-commands`);
  expect(out).toContain('./bin/ops restore --into');
  // The refusal changed nothing: the stamp is still the first log's.
  expect(await readStamp(rt.pool)).toEqual(stamp);
  // Clean up the other world's topics (its own start created them) through a runtime on its own database.
  worlds[worlds.length - 1].rt = await openRuntime(b);
});

test('a recreated topic (same name, new id) is refused', async () => {
  const { world, rt } = await opened('recreate');
  const before = (await readStamp(rt.pool))!;
  await rt.log.deleteTopics(Object.values(rt.codec.topics).map((t) => t.topic));
  await rt.close();
  worlds[worlds.length - 1].rt = undefined;
  const reopened = createRuntime(world.cfg);
  await expect(reopened).rejects.toThrow(`topic ${before.topics.accountCommands.topic}: database built from topic id ${before.topics.accountCommands.id}, the topic now has id`);
  await expect(reopened).rejects.toThrow(/deleted and recreated/);
  // Leave no topics behind: the refused start recreated them.
  const cleanup = newWorld('cleanup', { TOPIC_PREFIX: world.cfg.topicPrefix });
  const other = await createRuntime(cleanup.cfg);
  await other.log.deleteTopics(Object.values(other.codec.topics).map((t) => t.topic));
  await other.close();
  await dropWorld(cleanup);
});

test('NETWORK=mainnet against a Nile database refuses before touching any mainnet topic', async () => {
  const { world } = await opened('mainnet');
  const mainnetPrefix = `mainnet.${world.name}.`;
  const proc = startService(world, 'api', {
    NETWORK: 'mainnet',
    TOPIC_PREFIX: mainnetPrefix,
    DEPOSIT_XPUB: devDefaults.DEPOSIT_XPUB,
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false',
    API_PORT: '0',
  });
  await expect(proc.ready).rejects.toThrow(/exited early: 1/);
  expect(proc.output()).toContain(`database ${new URL(world.cfg.DATABASE_URL).pathname.slice(1)} is stamped NETWORK=nile, this process runs NETWORK=mainnet`);
  expect((await listTopics()).filter((t) => t.startsWith(mainnetPrefix))).toEqual([]);
  const pool = createPool(world.cfg.DATABASE_URL, 1);
  expect((await readStamp(pool))?.network).toBe('nile');
  await pool.end();
});
