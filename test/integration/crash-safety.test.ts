/**
 * Crash safety on the real stack: processors and the relay run as separate processes and are SIGKILLed
 * at random moments (by this test, and by their own crash points inside and right after the apply
 * transaction and around the Kafka send) while 1,000 adjustments flow. After restarting everything:
 * each command applied exactly once, every journal balanced, every event on account-events, duplicates
 * only with the same event id, and a replay of the log identical to the database.
 */
import { randomInt } from 'node:crypto';
import type { Command } from '../../services/domain/commands';
import type { CommandBus } from '../../services/platform/command-bus';
import type { Runtime } from '../../services/runtime';
import { replayAndVerify } from '../../services/ops/replay';
import { assertLedgerInvariants } from '../support/ledger-invariants';
import { startService, type ServiceProcess } from '../support/service-process';
import { readTopic } from '../support/topic-reader';
import { dropWorld, eventually, newWorld, openBus, openRuntime, templateReplay, type World } from '../support/world';
import { unpublishedCount } from '../../services/relay/relay';

const ACCOUNTS = 20;
const ADJUSTMENTS = 1_000;
const CHAOS = 'processor.before-commit:0.01,processor.after-commit:0.01,relay.before-send:0.02,relay.after-send:0.02';

let world: World;
let rt: Runtime;
let bus: CommandBus;

/** Keeps `count` processes of a role alive, restarting any that died, until told to stop. */
class Supervisor {
  readonly procs: ServiceProcess[] = [];
  restarts = 0;
  private timer: NodeJS.Timeout | undefined;
  constructor(private readonly roles: string, private readonly count: number, private env: Record<string, string>) {}
  start(): void {
    for (let i = 0; i < this.count; i++) this.procs.push(startService(world, this.roles, this.env));
    this.timer = setInterval(() => {
      this.procs.forEach((p, i) => {
        if (p.child.exitCode !== null || p.child.signalCode !== null) {
          this.restarts++;
          this.procs[i] = startService(world, this.roles, this.env);
        }
      });
    }, 200);
  }
  killRandom(): Promise<void> {
    return this.procs[randomInt(this.procs.length)].kill('SIGKILL');
  }
  calm(): void {
    this.env = {};
  }
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await Promise.all(this.procs.map((p) => p.kill('SIGTERM')));
  }
}

beforeAll(async () => {
  world = newWorld('crash');
  rt = await openRuntime(world);
  bus = await openBus(rt);
});

afterAll(async () => {
  await bus?.stop();
  if (world) await dropWorld(world, rt);
  await rt?.close();
});

test('SIGKILLs while 1,000 adjustments flow lose nothing and apply nothing twice', async () => {
  const processors = new Supervisor('processor', 2, { CHAOS_CRASH_POINTS: CHAOS });
  const relay = new Supervisor('relay', 1, { CHAOS_CRASH_POINTS: CHAOS });
  processors.start();
  relay.start();

  const accounts = Array.from({ length: ACCOUNTS }, (_, i) => `acc_crash${i}_${world.name}`);
  const creates: Command[] = accounts.map((accountId) =>
    bus.stamp({ type: 'account.create', accountId, brand: rt.cfg.BRAND, network: rt.cfg.NETWORK, ownerAddress: null, displayName: null }, false),
  );
  await bus.append(creates);

  // Positive amounts only: every adjustment must apply, so the expected balances are plain sums.
  const adjustments: Command[] = Array.from({ length: ADJUSTMENTS }, (_, i) =>
    bus.stamp({ type: 'balance.adjust', accountId: accounts[i % ACCOUNTS], amountSun: BigInt(1_000 + randomInt(1_000_000)), memo: `crash ${i}` }, false),
  );
  const killer = setInterval(() => void (randomInt(2) ? processors : relay).killRandom(), 1_500);
  for (let i = 0; i < ADJUSTMENTS; i += 25) {
    await bus.append(adjustments.slice(i, i + 25));
    await new Promise((r) => setTimeout(r, 250));
  }
  // A duplicate append of some commands, as a producer retry would make.
  await bus.append(adjustments.slice(0, 50));
  await new Promise((r) => setTimeout(r, 3_000));
  clearInterval(killer);
  processors.calm();
  relay.calm();
  await Promise.all([...processors.procs, ...relay.procs].map((p) => p.kill('SIGKILL')));

  const all = [...creates, ...adjustments];
  await eventually(async () => {
    const { rows } = await rt.pool.query("SELECT count(*)::int AS n FROM command_results WHERE command_id = ANY($1::text[]) AND outcome <> 'pending'", [all.map((c) => c.commandId)]);
    return rows[0].n === all.length;
  }, 180_000, 'every command to have a result');
  await eventually(async () => (await unpublishedCount(rt.pool)) === 0, 60_000, 'the outbox to drain');
  await processors.stop();
  await relay.stop();
  console.log(`crash test: ${processors.restarts} processor and ${relay.restarts} relay restarts`);
  expect(processors.restarts + relay.restarts).toBeGreaterThanOrEqual(4);

  // Exactly once: every command applied, one journal per adjustment, balances equal the sums.
  const outcomes = await rt.pool.query('SELECT outcome, count(*)::int AS n FROM command_results GROUP BY outcome');
  expect(outcomes.rows).toEqual([{ outcome: 'applied', n: all.length }]);
  const journals = await rt.pool.query('SELECT count(*)::int AS n, count(DISTINCT command_id)::int AS d FROM journals');
  expect(journals.rows[0]).toEqual({ n: ADJUSTMENTS, d: ADJUSTMENTS });
  const expected = new Map<string, bigint>();
  for (const a of adjustments) if (a.type === 'balance.adjust') expected.set(a.accountId, (expected.get(a.accountId) ?? 0n) + a.amountSun);
  const balances = await rt.pool.query('SELECT id, balance_sun FROM accounts');
  expect(new Map(balances.rows.map((r) => [r.id, r.balance_sun]))).toEqual(expected);
  await assertLedgerInvariants(rt.pool);

  // Every event reached account-events; copies only ever repeat the same event id with the same content.
  const events = await readTopic<Awaited<ReturnType<Runtime['codec']['decodeEvent']>>>(rt, 'accountEvents');
  const byId = new Map<string, string>();
  const idsByJournal = new Map<string, Set<string>>();
  for (const e of events) {
    const text = JSON.stringify(e.value, (_k, v) => (typeof v === 'bigint' ? v.toString() : v));
    if (byId.has(e.value.eventId)) expect(text).toBe(byId.get(e.value.eventId));
    byId.set(e.value.eventId, text);
    const journal = (e.value.data as { reference_id: string }).reference_id;
    idsByJournal.set(journal, (idsByJournal.get(journal) ?? new Set()).add(e.value.eventId));
  }
  expect(byId.size).toBe(ADJUSTMENTS);
  expect([...idsByJournal.values()].every((ids) => ids.size === 1)).toBe(true);
  const outboxIds = await rt.pool.query("SELECT message_id FROM outbox WHERE destination = 'account-events'");
  expect(new Set(byId.keys())).toEqual(new Set(outboxIds.rows.map((r) => r.message_id)));
  console.log(`crash test: ${events.length} event records for ${byId.size} events`);

  const report = await replayAndVerify(rt, templateReplay);
  expect(report.tables.filter((t) => t.differences.length > 0)).toEqual([]);
});
