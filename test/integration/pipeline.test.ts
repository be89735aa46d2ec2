/**
 * One real money command through the whole pipeline, on the real stack: command bus → Kafka →
 * processor (one transaction with the offset) → outbox → relay → account-events; and the answers a
 * caller gets for duplicates, late commands and commands it gave up on.
 */
import { readResults } from '../../services/platform/db/command-results';
import { commandBusFor, type CommandBus } from '../../services/platform/command-bus';
import type { Runtime } from '../../services/runtime';
import { replayAndVerify } from '../../services/ops/replay';
import { startRoles, type Stoppable } from '../../services/roles';
import type { Command } from '../../services/domain/commands';
import { assertLedgerInvariants } from '../support/ledger-invariants';
import { readTopic } from '../support/topic-reader';
import { processorCaughtUp } from '../support/processor-lag';
import { dropWorld, eventually, newWorld, openBus, openRuntime, templateReplay, type World } from '../support/world';

let world: World;
let rt: Runtime;
let bus: CommandBus;
let roles: Stoppable[] = [];

async function createAccount(): Promise<string> {
  const result = await bus.submit({ type: 'account.create', accountId: `acc_${Math.random().toString(16).slice(2)}`, brand: rt.cfg.BRAND, network: rt.cfg.NETWORK, ownerAddress: null, displayName: null });
  expect(result).toMatchObject({ outcome: 'applied', status: 201 });
  return result.body!.account_id as string;
}

beforeAll(async () => {
  world = newWorld('pipeline', { COMMAND_TIMEOUT_MS: '3000' });
  rt = await openRuntime(world);
  bus = await openBus(rt);
  roles = await startRoles(rt, ['processor', 'relay']);
});

afterAll(async () => {
  await Promise.allSettled(roles.map((r) => r.stop()));
  await bus?.stop();
  if (world) await dropWorld(world, rt);
  await rt?.close();
});

test('an adjustment becomes a balanced journal, a balance and a balance.credited event on account-events', async () => {
  const account = await createAccount();
  const result = await bus.submit({ type: 'balance.adjust', accountId: account, amountSun: 7_000_000n, memo: 'welcome' }, { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' });
  expect(result).toMatchObject({ outcome: 'applied', status: 201, body: { account_id: account, balance_sun: 7_000_000 } });
  const journalId = result.body!.journal_id as string;

  const { rows } = await rt.pool.query('SELECT ledger_account, amount FROM journal_lines WHERE journal_id = $1 ORDER BY line_no', [journalId]);
  expect(rows).toEqual([
    { ledger_account: 'system:support_adjustments', amount: -7_000_000n },
    { ledger_account: `customer:${account}:trx`, amount: 7_000_000n },
  ]);
  const balance = await rt.pool.query('SELECT balance_sun FROM accounts WHERE id = $1', [account]);
  expect(balance.rows[0].balance_sun).toBe(7_000_000n);

  const event = await eventually(async () => {
    const events = await readTopic<Awaited<ReturnType<Runtime['codec']['decodeEvent']>>>(rt, 'accountEvents');
    return events.find((e) => e.value.accountId === account);
  }, 30_000, 'the event on account-events');
  expect(event.value).toMatchObject({ type: 'balance.credited', eventVersion: 1, network: 'nile' });
  expect(event.value.data).toMatchObject({ reason: 'adjustment', currency: 'TRX', amount_sun: 7_000_000n, reference_id: journalId, tx_hash: null, asset: 'TRX' });
  // Confluent wire format: magic byte 0, then the 4-byte schema id of the value subject.
  expect(event.raw[0]).toBe(0);
  expect(event.raw.readInt32BE(1)).toBe(rt.codec.topics.accountEvents.valueId);
  // The trace context travelled API → command → processor → outbox → relay → account-events.
  expect(event.headers.traceparent).toMatch(/^00-4bf92f3577b34da6a3ce929d0e0e4736-/);
});

test('a debit beyond the available balance is rejected and changes nothing', async () => {
  const account = await createAccount();
  await bus.submit({ type: 'balance.adjust', accountId: account, amountSun: 1_000n, memo: 'credit' });
  const result = await bus.submit({ type: 'balance.adjust', accountId: account, amountSun: -1_001n, memo: 'too much' });
  expect(result).toMatchObject({ outcome: 'rejected', status: 402, error: { slug: 'insufficient_funds' } });
  const { rows } = await rt.pool.query('SELECT count(*)::int AS n FROM journals WHERE account_id = $1', [account]);
  expect(rows[0].n).toBe(1);
});

test('the same command appended twice is applied once', async () => {
  const account = await createAccount();
  const command = bus.stamp({ type: 'balance.adjust', accountId: account, amountSun: 500n, memo: 'dup' }, false);
  await bus.append([command]);
  await bus.append([command]);
  const marker = bus.stamp({ type: 'balance.adjust', accountId: account, amountSun: 1n, memo: 'after' });
  const after = await bus.submit({ type: 'balance.adjust', accountId: account, amountSun: 1n, memo: 'after' });
  expect(after.outcome).toBe('applied');
  expect(marker.commandId).not.toBe(command.commandId);
  const { rows } = await rt.pool.query('SELECT balance_sun FROM accounts WHERE id = $1', [account]);
  expect(rows[0].balance_sun).toBe(501n);
});

test('a command past its deadline is refused by the processor, and the refusal reaches the log', async () => {
  const account = await createAccount();
  const late: Command = { ...bus.stamp({ type: 'balance.adjust', accountId: account, amountSun: 900n, memo: 'late' }), deadlineAt: Date.now() - 1 };
  await bus.append([late]);
  const result = await eventually(async () => (await readResults(rt.pool, [late.commandId])).get(late.commandId), 30_000, 'the refusal');
  expect(result).toMatchObject({ outcome: 'refused', status: 503, refusalReason: 'deadline_passed', error: { slug: 'service_unavailable' } });
  const { rows } = await rt.pool.query('SELECT balance_sun FROM accounts WHERE id = $1', [account]);
  expect(rows[0].balance_sun).toBe(0n);
  await eventually(async () => {
    const commands = await readTopic<Command>(rt, 'accountCommands');
    return commands.some((c) => c.value.type === 'command.refused' && c.value.refusedCommandId === late.commandId);
  }, 30_000, 'the refusal marker on account-commands');
});

test('a caller that gives up gets a true 503: the processor later refuses the command instead of applying it', async () => {
  const account = await createAccount();
  await Promise.all(roles.map((r) => r.stop()));
  roles = [];
  const result = await bus.submit({ type: 'balance.adjust', accountId: account, amountSun: 1_234n, memo: 'nobody home' });
  expect(result).toMatchObject({ outcome: 'refused', status: 503, refusalReason: 'abandoned' });
  roles = await startRoles(rt, ['processor', 'relay']);
  await eventually(async () => {
    const { rows } = await rt.pool.query("SELECT count(*)::int AS n FROM outbox WHERE payload->>'refusedCommandId' = $1", [result.commandId]);
    return rows[0].n === 1;
  }, 30_000, 'the processor to honour the abandonment');
  const { rows } = await rt.pool.query('SELECT balance_sun FROM accounts WHERE id = $1', [account]);
  expect(rows[0].balance_sun).toBe(0n);
});

test('balance.low fires once when the available balance crosses below the account threshold', async () => {
  const account = await createAccount();
  await bus.submit({ type: 'balance.adjust', accountId: account, amountSun: 10_000_000n, memo: 'credit' });
  const set = await bus.submit({ type: 'account.set_low_balance_alert', accountId: account, thresholdSun: 5_000_000n });
  expect(set).toMatchObject({ outcome: 'applied', body: { low_balance_threshold_sun: 5_000_000 } });
  await bus.submit({ type: 'balance.adjust', accountId: account, amountSun: -6_000_000n, memo: 'crosses' });
  await bus.submit({ type: 'balance.adjust', accountId: account, amountSun: -1_000_000n, memo: 'already below' });
  const lows = await eventually(async () => {
    const events = await readTopic<Awaited<ReturnType<Runtime['codec']['decodeEvent']>>>(rt, 'accountEvents');
    const found = events.filter((e) => e.value.accountId === account && e.value.type === 'balance.low');
    return found.length > 0 ? found : undefined;
  }, 30_000, 'balance.low on account-events');
  expect(lows).toHaveLength(1);
  // 4 TRX available at the configured 5m price of 40 SUN per energy: one 65,000-energy order left.
  expect(lows[0].value.data).toEqual({ balance_sun: 4_000_000n, threshold_sun: 5_000_000n, estimated_orders_remaining: 1n });
});

// A command PostgreSQL cannot store (a NUL byte in a text field) must not stall its partition: the processor
// finds it inside the failing batch, refuses it as `unprocessable` (answered to its caller, marked on the
// log), applies the rest at once, and the replay at the end refuses it the same way. The reason
// `unprocessable` (not `deadline_passed`/`abandoned`) shows the refusal came from the isolation.
test('a NUL memo among good commands of one batch is refused at once; the others apply; the refusal reaches the log', async () => {
  const [a, b] = await Promise.all([createAccount(), createAccount()]);
  const started = Date.now();
  // Sent together (same millisecond, one produce request, one partition): they meet in one processor batch.
  const [goodA, poison, goodB, goodA2] = await Promise.all([
    bus.submit({ type: 'balance.adjust', accountId: a, amountSun: 1_000n, memo: 'before' }),
    bus.submit({ type: 'balance.adjust', accountId: a, amountSun: 5_000n, memo: 'x\u0000y' }),
    bus.submit({ type: 'balance.adjust', accountId: b, amountSun: 2_000n, memo: 'other account' }),
    bus.submit({ type: 'balance.adjust', accountId: a, amountSun: 3_000n, memo: 'after' }),
  ]);
  const elapsedMs = Date.now() - started;
  expect(poison).toMatchObject({ outcome: 'refused', status: 400, refusalReason: 'unprocessable', error: { slug: 'invalid_request' } });
  for (const good of [goodA, goodB, goodA2]) expect(good.outcome).toBe('applied');
  expect(elapsedMs).toBeLessThan(5_000);
  const { rows } = await rt.pool.query('SELECT id, balance_sun FROM accounts WHERE id = ANY($1) ORDER BY id', [[a, b]]);
  expect(new Map(rows.map((r) => [r.id, r.balance_sun]))).toEqual(new Map([[a, 4_000n], [b, 2_000n]]));
  const stored = await rt.pool.query('SELECT outcome, refusal_reason FROM command_results WHERE command_id = $1', [poison.commandId]);
  expect(stored.rows).toEqual([{ outcome: 'refused', refusal_reason: 'unprocessable' }]);
  await eventually(async () => {
    const commands = await readTopic<Command>(rt, 'accountCommands');
    return commands.some((c) => c.value.type === 'command.refused' && c.value.refusedCommandId === poison.commandId && c.value.reason === 'unprocessable');
  }, 30_000, 'the unprocessable marker on account-commands');
});

test('a stream of poison commands does not hold back the other accounts', async () => {
  const [victim, attacker] = await Promise.all([createAccount(), createAccount()]);
  const poisons = Array.from({ length: 20 }, (_, i) => bus.submit({ type: 'balance.adjust', accountId: attacker, amountSun: 1n, memo: `p${i}\u0000` }));
  const started = Date.now();
  const victims = await Promise.all(Array.from({ length: 20 }, () => bus.submit({ type: 'balance.adjust', accountId: victim, amountSun: 1n, memo: 'v' })));
  const victimMs = Date.now() - started;
  expect(victims.every((v) => v.outcome === 'applied')).toBe(true);
  expect((await Promise.all(poisons)).map((p) => p.refusalReason)).toEqual(Array(20).fill('unprocessable'));
  expect(victimMs).toBeLessThan(5_000);
  const { rows } = await rt.pool.query('SELECT balance_sun FROM accounts WHERE id = $1', [victim]);
  expect(rows[0].balance_sun).toBe(20n);
});

test('load shedding: past COMMAND_MAX_WAITING a submit answers 503 at once and appends nothing', async () => {
  const account = await createAccount();
  const small = commandBusFor(rt, { maxWaiting: 1 });
  await small.start();
  try {
    const [first, shed] = await Promise.all([
      small.submit({ type: 'balance.adjust', accountId: account, amountSun: 10n, memo: 'first' }),
      small.submit({ type: 'balance.adjust', accountId: account, amountSun: 20n, memo: 'shed' }),
    ]);
    expect(first.outcome).toBe('applied');
    expect(shed).toMatchObject({ outcome: 'refused', status: 503, refusalReason: 'abandoned' });
    await processorCaughtUp(rt);
    const commands = await readTopic<Command>(rt, 'accountCommands');
    expect(commands.some((c) => c.value.commandId === shed.commandId)).toBe(false);
    expect((await readResults(rt.pool, [shed.commandId])).size).toBe(0);
    const { rows } = await rt.pool.query('SELECT balance_sun FROM accounts WHERE id = $1', [account]);
    expect(rows[0].balance_sun).toBe(10n);
  } finally {
    await small.stop();
  }
});

test('ledger invariants hold and a replay of the log rebuilds identical tables', async () => {
  await assertLedgerInvariants(rt.pool);
  const report = await replayAndVerify(rt, templateReplay);
  expect(report.tables.filter((t) => t.differences.length > 0)).toEqual([]);
  expect(report.identical).toBe(true);
  expect(report.records).toBeGreaterThan(10);
});
