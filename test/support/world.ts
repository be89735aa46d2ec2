/**
 * A test's own world on the shared test stack: its own topics (TOPIC_PREFIX) and its own database, so
 * every integration test file starts empty and a replay of its log must match its database exactly.
 * The stack itself (Kafka, registry, PostgreSQL, Redis, devnet on the test profile's ports) is started
 * by `make test`; run a single file with `infra/env/load.sh test -- npx jest <file>`.
 */
import { randomBytes } from 'node:crypto';
import { parseConfig, type Config } from '../../services/platform/config';
import { createRuntime, type Runtime } from '../../services/platform/runtime';
import { commandBusFor, type CommandBus } from '../../services/platform/command-bus';
import { replayAndVerify } from '../../services/ops/replay';
import { reconcileOnce, reconcileReport } from '../../services/reconciler/run';
import { dropDatabase } from '../../services/platform/db/databases';

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
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn',
    ...overrides,
  };
  return { name, env, cfg: parseConfig(env) };
}

export async function openRuntime(world: World): Promise<Runtime> {
  return createRuntime(world.cfg);
}

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
 * identical), then deletes its topics and drops its database, so test runs leave nothing behind.
 */
export async function dropWorld(world: World, rt?: Runtime): Promise<void> {
  if (rt) {
    const report = await replayAndVerify(rt);
    const differing = report.tables.filter((t) => t.differences.length > 0);
    if (differing.length > 0) throw new Error(`replay differs from the database: ${JSON.stringify(differing)}`);
    await rt.log.deleteTopics(Object.values(rt.codec.topics).map((t) => t.topic)).catch(() => undefined);
  }
  await dropDatabase(world.cfg.DATABASE_URL);
}
