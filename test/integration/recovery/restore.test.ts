/**
 * `ops restore --into <database>` (issue 15, item 2) on the real stack: accounts, adjustments (some at
 * once on one account, one refused) and alert settings go through the processor; the ops tool rebuilds a
 * new database from the topics alone; every table on the log is identical, the new database is stamped
 * with the same log, and a processor started on it goes on from where the log ended.
 */
import { commandBusFor, type CommandBus } from '../../../services/platform/command-bus';
import { dropDatabase } from '../../../services/platform/db/databases';
import { createPool, type Pool } from '../../../services/platform/db/pool';
import { readStamp } from '../../../services/platform/log-identity';
import { createRuntime, type Runtime } from '../../../services/runtime';
import { compareTable } from '../../../services/ops/replay';
import { replayedTables } from '../../../services/ops/replayed-tables';
import { catchUpAfterRestore, restoreInto } from '../../../services/ops/restore';
import type { KafkaLog } from '../../../services/platform/kafka';
import { DISPATCHER_GROUP } from '../../../services/dispatcher/dispatcher';
import { startRoles, type Stoppable } from '../../../services/roles';
import { assertLedgerInvariants } from '../../support/ledger-invariants';
import { runOps } from '../../support/ops-process';
import { dropWorld, eventually, newWorld, openBus, openRuntime, type World } from '../../support/world';
import { unpublishedCount } from '../../../services/relay/relay';

const HOUR = 3_600_000;

let world: World;
let rt: Runtime;
let bus: CommandBus;
let roles: Stoppable[];
let restoredName: string;
let restoredUrl: string;
/** The 'newest' adjustment (case 2): applied by the live processor after the restored database was made. */
let newestCommandId: string;

const ops = (args: string[]) => runOps(world, args);

async function account(): Promise<string> {
  const accountId = `acc_${Math.random().toString(16).slice(2)}`;
  const r = await bus.submit({ type: 'account.create', accountId, brand: rt.cfg.BRAND, network: rt.cfg.NETWORK, ownerAddress: null, displayName: 'restore test' });
  expect(r.outcome).toBe('applied');
  return accountId;
}

beforeAll(async () => {
  world = newWorld('restore');
  rt = await openRuntime(world);
  roles = await startRoles(rt, ['processor', 'relay']);
  bus = await openBus(rt);
  restoredName = `${new URL(world.cfg.DATABASE_URL).pathname.slice(1)}_restored`;
});

afterAll(async () => {
  await bus?.stop();
  await Promise.all((roles ?? []).map((r) => r.stop()));
  if (restoredName) await dropDatabase(new URL(`/${restoredName}`, world.cfg.DATABASE_URL).toString());
  await dropWorld(world, rt);
  await rt.close();
});

test('restore rebuilds every table on the log into a new database, stamped with the same log', async () => {
  const accounts = await Promise.all([account(), account(), account()]);
  // Many adjustments at once, several on one account in the same moment, and one the ledger refuses.
  const results = await Promise.all([
    ...accounts.flatMap((a, i) => Array.from({ length: 10 }, (_, k) => bus.submit({ type: 'balance.adjust', accountId: a, amountSun: BigInt((i + 1) * 1_000_000 + k), memo: `credit ${k}` }))),
    bus.submit({ type: 'account.set_low_balance_alert', accountId: accounts[0], thresholdSun: 5_000_000n }),
  ]);
  expect(results.every((r) => r.outcome === 'applied')).toBe(true);
  const overdraw = await bus.submit({ type: 'balance.adjust', accountId: accounts[1], amountSun: -1_000_000_000_000n, memo: 'too much' });
  expect(overdraw.outcome).not.toBe('applied');
  await eventually(async () => (await unpublishedCount(rt.pool)) === 0, 30_000, 'relay');

  const run = await ops(['restore', '--into', restoredName]);
  expect(run.stderr).toMatch(/applied (\d+)\/\1 records \(100 %/);
  expect(run.code).toBe(0);
  const printed = /^DATABASE_URL=(.+)$/m.exec(run.stdout)?.[1];
  expect(printed).toBeDefined();
  restoredUrl = printed!;
  expect(new URL(restoredUrl).pathname).toBe(`/${restoredName}`);
  expect(run.stdout).toMatch(/0 outbox messages left for the relay/);

  const restored = createPool(restoredUrl, 2);
  const live = await rt.pool.connect();
  try {
    for (const t of replayedTables) {
      const cmp = await compareTable(live, restored, t);
      expect({ table: t.table, differences: cmp.differences }).toEqual({ table: t.table, differences: [] });
      if (['accounts', 'journals', 'command_results'].includes(t.table)) expect(cmp.replayed).toBeGreaterThan(0);
    }
    const balances = async (db: Pool | typeof live) => (await db.query('SELECT id, balance_sun FROM accounts ORDER BY id')).rows;
    expect(await balances(restored)).toEqual(await balances(live));
    expect(await readStamp(restored)).toEqual(await readStamp(rt.pool));
    expect(await unpublishedCount(restored)).toBe(0);
    await assertLedgerInvariants(restored);
  } finally {
    live.release();
    await restored.end();
  }
});

test('the webhook dispatcher resumes one redelivery window before the end of account-events: all of it here, only the newest on a fast clock', async () => {
  const topic = rt.codec.topicName('accountEvents');
  const end = await rt.log.endOffsets(topic);
  const total = [...end.values()].reduce((a, b) => a + b, 0n);
  expect(total).toBeGreaterThan(0n);
  const positions = async (url: string) => {
    const pool = createPool(url, 1);
    try {
      const { rows } = await pool.query('SELECT partition, next_offset FROM consumer_offsets WHERE consumer_group = $1 AND topic = $2 ORDER BY partition', [DISPATCHER_GROUP, topic]);
      return new Map(rows.map((r) => [r.partition as number, r.next_offset as bigint]));
    } finally {
      await pool.end();
    }
  };
  // Everything on the log is minutes old: within the window, so every event is delivered again (none lost).
  expect(await positions(restoredUrl)).toEqual(new Map([...end.keys()].map((p) => [p, 0n])));

  // One more event, alone at the newest instant; on a clock a billion times faster the window is under a
  // millisecond of wall time, so only that event comes again and every partition behind it resumes at its end.
  // The window is 22 h of service time, 79 ms of wall time at that scale: the newest event must come well after
  // the others (50 ms was not enough on a fast run).
  await new Promise((r) => setTimeout(r, 300));
  const last = await bus.submit({ type: 'balance.adjust', accountId: (await rt.pool.query('SELECT id FROM accounts ORDER BY id LIMIT 1')).rows[0].id, amountSun: 1n, memo: 'newest' });
  expect(last.outcome).toBe('applied');
  newestCommandId = last.commandId;
  await eventually(async () => (await unpublishedCount(rt.pool)) === 0, 30_000, 'relay');
  const fastName = `${restoredName}_fast`;
  try {
    const report = await restoreInto({ ...rt.cfg, CLOCK_SCALE: 1_000_000_000 }, fastName);
    expect(report.redelivered).toBe(1);
    const endNow = await rt.log.endOffsets(topic);
    const fast = await positions(report.databaseUrl);
    // One partition one record behind its end (the newest event), the others at their end.
    const behind = [...fast.entries()].map(([p, offset]) => endNow.get(p)! - offset).filter((n) => n !== 0n);
    expect(behind).toEqual([1n]);
    expect(fast.size).toBe(endNow.size);
  } finally {
    await dropDatabase(new URL(`/${fastName}`, world.cfg.DATABASE_URL).toString());
  }
});

test('restore refuses a database that exists already and changes nothing in it', async () => {
  const pool = createPool(restoredUrl, 1);
  const before = (await pool.query('SELECT count(*)::int AS n FROM journals')).rows[0].n;
  const run = await ops(['restore', '--into', restoredName]);
  expect(run.code).toBe(1);
  expect(run.stderr).toContain(`database ${restoredName} exists already`);
  expect((await pool.query('SELECT count(*)::int AS n FROM journals')).rows[0].n).toBe(before);
  await pool.end();
  const bad = await ops(['restore', '--into', 'Robert"; DROP']);
  expect(bad.code).toBe(1);
  expect(bad.stderr).toMatch(/a database name is lower-case letters/);
});

test('a processor started on the restored database goes on from where the log ended, deciding what was appended since as the log did', async () => {
  const accountId = (await rt.pool.query('SELECT id FROM accounts ORDER BY id LIMIT 1')).rows[0].id as string;
  // A command already past its deadline when the live processor reaches it (issued by a caller whose clock is
  // an hour behind): refused, with its marker on the log.
  const behind = commandBusFor(rt, { clock: { now: () => Date.now() - HOUR, realDelay: (ms) => Math.max(0, ms) } });
  await behind.start();
  const late = await behind.submit({ type: 'balance.adjust', accountId, amountSun: 1_000n, memo: 'late' }).finally(() => behind.stop());
  expect(late.refusalReason).toBe('deadline_passed');
  await eventually(async () => (await unpublishedCount(rt.pool)) === 0, 30_000, 'relay');
  // The live processor hands over: one processor group per log.
  await bus.stop();
  await Promise.all(roles.map((r) => r.stop()));
  roles = [];
  const onRestored = await createRuntime({ ...rt.cfg, DATABASE_URL: restoredUrl });
  // The restored processor runs an hour ahead: every command appended since the restore (the 'newest' one, the
  // late one) is past its deadline when it reaches them, however short the gap was (under load it was seconds
  // and it refused 'newest' now and then; a 1-sun divergence from the log).
  onRestored.clock = { now: () => Date.now() + HOUR, realDelay: (ms) => Math.max(0, ms) };
  // A catch-up that dies after its first slice (the log's scan fails there): the end it goes to is stored and
  // the slices applied are committed; the processor's start below resumes it to the same result.
  const commands = onRestored.codec.topicName('accountCommands');
  let scans = 0;
  const dying = Object.create(onRestored.log) as KafkaLog;
  dying.scan = (topic, until, onBatch) => {
    const applying = topic === commands && ++scans === 2; // the first scan reads the refusal markers
    return onRestored.log.scan(topic, until, async (batch, heartbeat) => {
      await onBatch(batch, heartbeat);
      if (applying) throw new Error('catch-up killed');
    });
  };
  await expect(catchUpAfterRestore({ ...onRestored, log: dying }, () => undefined)).rejects.toThrow('catch-up killed');
  expect((await onRestored.pool.query('SELECT until_offsets FROM restore_catch_up')).rows[0].until_offsets).not.toBeNull();
  const restoredRoles = await startRoles(onRestored, ['processor']);
  const restoredBus = await openBus(onRestored);
  try {
    // The restored database was made before the 'newest' adjustment; the processor applies that record from the
    // log before this one (same account, same partition), so the live balance is the base, not the restored row.
    const { rows } = await rt.pool.query('SELECT id, balance_sun FROM accounts ORDER BY id LIMIT 1');
    expect(rows[0].id).toBe(accountId);
    const r = await restoredBus.submit({ type: 'balance.adjust', accountId: rows[0].id, amountSun: 42n, memo: 'after restore' });
    expect(r.outcome).toBe('applied');
    const after = (await onRestored.pool.query('SELECT balance_sun FROM accounts WHERE id = $1', [rows[0].id])).rows[0].balance_sun;
    expect(after).toBe((rows[0].balance_sun as bigint) + 42n);
    // As the log decided them: 'newest' applied (its caller had its 2xx), the late one refused as it was.
    const outcomes = async (db: Pool) => (await db.query('SELECT command_id, outcome, refusal_reason FROM command_results WHERE command_id = ANY($1) ORDER BY command_id', [[newestCommandId, late.commandId]])).rows;
    expect(await outcomes(onRestored.pool)).toEqual(await outcomes(rt.pool));
    expect((await outcomes(onRestored.pool)).map((r) => r.outcome).sort()).toEqual(['applied', 'refused']);
    // Caught up: the next start is a normal one.
    expect((await onRestored.pool.query('SELECT count(*)::int AS n FROM restore_catch_up')).rows[0].n).toBe(0);
    await assertLedgerInvariants(onRestored.pool);
  } finally {
    await restoredBus.stop();
    await Promise.all(restoredRoles.map((s) => s.stop()));
    await onRestored.close();
  }
  bus = await openBus(rt);
});
