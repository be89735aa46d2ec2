/**
 * A test's own world on the shared test stack: its own topics (TOPIC_PREFIX) and its own database, so
 * every integration test file starts empty and a replay of its log must match its database exactly.
 * The stack itself (Kafka, registry, PostgreSQL, Redis, devnet on the test profile's ports) is started
 * by `make test`; run a single file with `infra/env/load.sh test -- npx jest <file>`.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { parseConfig, type Config } from '../../services/platform/config';
import { createRuntime, type Runtime } from '../../services/runtime';
import { commandBusFor, type CommandBus } from '../../services/platform/command-bus';
import { replayAndVerify, type ReplayOptions } from '../../services/ops/replay';
import { reconcileOnce, reconcileReport } from '../../services/reconciler/run';
import { dropDatabase, quoteIdent, withServer } from '../../services/platform/db/databases';
import { migrate } from '../../services/platform/db/migrate';
import { dropOrRetire } from './retired-databases';

export interface World {
  name: string;
  env: Record<string, string>;
  cfg: Config;
}

export function newWorld(label: string, overrides: Record<string, string> = {}): World {
  if (!process.env.KAFKA_BROKERS || !process.env.DATABASE_URL) {
    throw new Error('integration tests need the test profile: run `make test`, or `infra/env/load.sh test -- npx jest <file>`');
  }
  const name = `${label.replace(/[^a-z0-9]/g, '')}${randomBytes(3).toString('hex')}`;
  const db = new URL(process.env.DATABASE_URL);
  db.pathname = `${db.pathname}_${name}`;
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    TOPIC_PREFIX: `${process.env.NETWORK ?? 'nile'}.${name}.`,
    DATABASE_URL: db.toString(),
    TOPIC_PARTITIONS: '3',
    KAFKA_SESSION_TIMEOUT_MS: '6000',
    // The consumers' idle fetch wait: 100 ms, not the service's 10 ms default (which buys the order benchmark
    // its latency). With minBytes 1 a fetch returns as soon as a record arrives, so a world's commands are not
    // slower; its idle consumers poll the broker 10 times a second instead of 100. Measured (bench/idle-world.ts,
    // bench/README.md): an idle `--roles all` process 102-125 -> 57-69 ms of CPU per second, the broker about
    // 50 ms/s less per such process, on a machine where every integration file keeps several of them alive.
    KAFKA_FETCH_MAX_WAIT_MS: process.env.TEST_KAFKA_FETCH_MAX_WAIT_MS ?? '100',
    // The idle polls of the delivery, desk and promo roles space out to 400 ms, not the service's 2 s: a world
    // is idle between its steps, and a test's next step should not wait out the longer poll.
    CHAIN_IDLE_POLL_MS: process.env.TEST_CHAIN_IDLE_POLL_MS ?? '400',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn',
    ...overrides,
  };
  return { name, env, cfg: parseConfig(env) };
}

/**
 * Opens the world's runtime. Its database starts as a copy of a template that holds every migration
 * (CREATE DATABASE ... TEMPLATE, a file copy inside PostgreSQL) instead of running all migrations per
 * world. The template is named by a hash of migrations/, so a changed or added migration builds a new one;
 * a database copied from it just now has every migration, so the runtime skips its own migrate (which would
 * find nothing to do). A database that existed already (a world opened again) is migrated as usual.
 */
export async function openRuntime(world: World): Promise<Runtime> {
  const copied = await copyMigratedTemplate(world.cfg.DATABASE_URL);
  return createRuntime(world.cfg, { migrate: !copied });
}

const migrationsDir = path.resolve(__dirname, '../../migrations');

function templateName(databaseUrl: string): string {
  const hash = createHash('sha256');
  for (const file of fs.readdirSync(migrationsDir).sort()) hash.update(file).update('\0').update(fs.readFileSync(path.join(migrationsDir, file))).update('\0');
  const base = decodeURIComponent(new URL(process.env.DATABASE_URL ?? databaseUrl).pathname.slice(1));
  return `${base}_template_${hash.digest('hex').slice(0, 12)}`;
}

/**
 * Creates the database (when absent) from the migrated template, building the template first if needed.
 * True when it created it, false when it existed.
 */
async function copyMigratedTemplate(databaseUrl: string): Promise<boolean> {
  const template = templateName(databaseUrl);
  return withServer(databaseUrl, async (admin, quoted, name) => {
    const exists = async (n: string) => (await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [n])).rowCount !== 0;
    if (await exists(name)) return false;
    if (!(await exists(template))) {
      // One builder at a time (parallel test files share the server); the others find it built.
      await admin.query("SELECT pg_advisory_lock(hashtext('energy.test-template'))");
      if (!(await exists(template))) {
        const building = `${template}_building`;
        const buildUrl = new URL(databaseUrl);
        buildUrl.pathname = `/${building}`;
        await dropDatabase(buildUrl.toString());
        await migrate(buildUrl.toString());
        await admin.query(`ALTER DATABASE ${quoteIdent(building)} RENAME TO ${quoteIdent(template)}`);
      }
      await admin.query("SELECT pg_advisory_unlock(hashtext('energy.test-template'))");
    }
    await admin.query(`CREATE DATABASE ${quoted} TEMPLATE ${quoteIdent(template)}`);
    return true;
  });
}

/**
 * Options for replayAndVerify in tests: the replay database is a fresh copy of the migrated template, as
 * every world's own database is, instead of one migrated from nothing per replay.
 */
export const templateReplay: ReplayOptions = {
  replayDatabase: {
    prepare: async (url) => {
      await dropOrRetire(url);
      await copyMigratedTemplate(url);
    },
    drop: dropOrRetire,
  },
};

export async function openBus(rt: Runtime): Promise<CommandBus> {
  const bus = commandBusFor(rt);
  await bus.start();
  return bus;
}

/** Polls until `check` returns a value other than undefined/false, or fails after `timeoutMs`. */
export async function eventually<T>(check: () => Promise<T | undefined | false>, timeoutMs = 60_000, what = 'condition'): Promise<T> {
  const until = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < until) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value as T;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
}

/**
 * For worlds that run orders, next to the replay check: `ops reconcile` finds the chain and the records
 * agreeing (every pool address's delegated stake per receiver equals what the open orders hold, up to
 * transactions still in flight).
 */
export async function assertReconciled(rt: Runtime): Promise<void> {
  const outcome = await reconcileOnce(rt);
  if (outcome.findings > 0) throw new Error(`ops reconcile differs after the test:\n${reconcileReport(outcome)}`);
}

/**
 * Checks that a replay of the world's log rebuilds its database exactly (after any test, the two are
 * identical), then deletes its topics and drops its database (under jest: at the end of the run,
 * retired-databases.ts), so test runs leave nothing behind.
 */
export async function dropWorld(world: World, rt?: Runtime): Promise<void> {
  if (rt) {
    const report = await replayAndVerify(rt, templateReplay);
    const differing = report.tables.filter((t) => t.differences.length > 0);
    if (differing.length > 0) throw new Error(`replay differs from the database: ${JSON.stringify(differing)}`);
    await rt.log.deleteTopics(Object.values(rt.codec.topics).map((t) => t.topic)).catch(() => undefined);
  }
  await dropOrRetire(world.cfg.DATABASE_URL);
}
