/**
 * A settlement's follow-up (order.deliver step=activate) applies in the processor slice of its parent,
 * right after it, as a step of its own (its derived command id, its result row, its order.active record)
 * instead of going through the outbox and the log again. A log written by older code, which holds the
 * follow-up as a command of its own, still applies it once: in the same slice or in a later one.
 * Real PostgreSQL (the world's database), applyBatch as the processor and the replay call it.
 */
import { applyBatch, type RefusalPolicy } from '../../../services/processor/apply-batch';
import type { Command } from '../../../services/domain/commands';
import { derivedId } from '../../../services/domain/ids';
import type { Runtime } from '../../../services/runtime';
import { dropWorld, newWorld, openRuntime, type World } from '../../support/world';

const ctx = { network: 'nile' as const, brand: 'energy' };
const applyAll: RefusalPolicy = { refusalFor: () => null };

let world: World;
let rt: Runtime;

beforeAll(async () => {
  world = newWorld('inlinefu');
  rt = await openRuntime(world);
});

// Written without the log (applyBatch alone): no replay to verify at the end.
afterAll(async () => {
  await rt?.close();
  if (world) await dropWorld(world);
});

let n = 0;
const meta = (accountId: string) => ({ commandId: `cmd_inl_${accountId}_${++n}`, accountId, issuedAt: 1_700_000_000_000 + n, deadlineAt: null, replyTo: null });

async function slice(commands: Command[]) {
  const client = await rt.pool.connect();
  try {
    await client.query('BEGIN');
    const applied = await applyBatch(client, commands, ctx, applyAll, () => null, 0);
    await client.query('COMMIT');
    return applied;
  } finally {
    client.release();
  }
}

/** An account with an order allocated (one delegation d1), and the settlement that confirms it. */
async function allocatedOrder(accountId: string): Promise<{ orderId: string; settle: Command; followUpId: string }> {
  await slice([
    { ...meta(accountId), type: 'account.create', brand: 'energy', network: 'nile', ownerAddress: null, displayName: null } as Command,
    { ...meta(accountId), type: 'balance.adjust', amountSun: 10_000_000n, memo: 'test' } as Command,
  ]);
  const create = {
    ...meta(accountId), type: 'order.create', clientOrderId: null, idempotencyKey: null, requestHash: 'h1', resource: 'energy', amount: 65_000, tier: '5m',
    durationSeconds: 300, receiver: 'TR', receiverActive: true, activate: null, maxPriceSun: null, quoteId: null, quoteExpiresAt: null,
    priceSunPerUnit: 40n, paySun: 2_600_000n, activateSun: 0n, source: 'api', memo: null, supplier: 'pool',
  } as Command;
  const orderId = derivedId('order', create.commandId);
  await slice([
    create,
    { ...meta(accountId), type: 'order.allocate', orderId, ratioLimit: 1n, ratioWeight: 1n, txs: [{ kind: 'delegate', from: 'TP', amount: 65_000, sun: 1n, txId: `d1_${accountId}`, signedTx: '{}' }] } as Command,
  ]);
  const settle = { ...meta(accountId), type: 'order.settle', orderId, landedTxIds: [`d1_${accountId}`], deliveredAt: 1_700_000_005_000 } as Command;
  return { orderId, settle, followUpId: derivedId('command', 'order-activate', orderId) };
}

/** What an outside consumer and a replay see of one order: its row, its results, its order records in outbox order (commands too). */
async function observed(accountId: string, orderId: string) {
  const order = (await rt.pool.query('SELECT status, confirm_status, delivered_amount, refunded_amount_sun FROM orders WHERE id = $1', [orderId])).rows[0];
  const results = (await rt.pool.query(
    "SELECT command_id, command_type, outcome, http_status FROM command_results WHERE account_id = $1 AND command_type IN ('order.settle', 'order.deliver') ORDER BY command_id",
    [accountId],
  )).rows;
  const outbox = (await rt.pool.query("SELECT destination, payload->>'type' AS type FROM outbox WHERE account_id = $1 AND payload->>'type' LIKE 'order.%' ORDER BY id", [accountId])).rows;
  const balance = (await rt.pool.query('SELECT balance_sun, reserved_sun FROM accounts WHERE id = $1', [accountId])).rows[0];
  return { order, results, outbox, balance };
}

test('the settlement and its follow-up apply in one slice: confirmed then active, two results, nothing on account-commands', async () => {
  const { orderId, settle, followUpId } = await allocatedOrder('acc_inl_a');
  const applied = await slice([settle]);
  expect(applied.map((a) => [a.command.commandId, a.command.type, a.result.outcome])).toEqual([
    [settle.commandId, 'order.settle', 'applied'],
    [followUpId, 'order.deliver', 'applied'],
  ]);
  // The settlement's own answer is the order as it confirmed (the follow-up is a step of its own).
  expect(applied[0].result.body).toMatchObject({ status: 'confirmed' });
  expect(applied[1].result.body).toMatchObject({ status: 'active' });
  const seen = await observed('acc_inl_a', orderId);
  expect(seen.order).toMatchObject({ status: 'active', confirm_status: 'confirmed' });
  expect(seen.results.map((r) => [r.command_id, r.outcome])).toEqual(expect.arrayContaining([[settle.commandId, 'applied'], [followUpId, 'applied']]));
  expect(seen.outbox).toEqual([
    { destination: 'order-events', type: 'order.created' },
    { destination: 'order-events', type: 'order.allocated' },
    { destination: 'account-events', type: 'order.confirmed' },
    { destination: 'order-events', type: 'order.confirmed' },
    { destination: 'order-events', type: 'order.active' },
  ]);
});

test('a log written by older code (the follow-up on it after its parent) applies the follow-up once, in the same slice or a later one', async () => {
  const reference = await allocatedOrder('acc_inl_b');
  await slice([reference.settle]);
  const expected = await observed('acc_inl_b', reference.orderId);

  // Same slice: the copy on the log stands after its parent and is skipped there.
  const same = await allocatedOrder('acc_inl_c');
  const applied = await slice([same.settle, activateOf(same.settle, same.followUpId)]);
  expect(applied.map((a) => a.command.commandId)).toEqual([same.settle.commandId, same.followUpId]);
  const seenSame = await observed('acc_inl_c', same.orderId);

  // A later slice: its command id was claimed with its parent; the copy changes nothing and writes nothing.
  const later = await allocatedOrder('acc_inl_d');
  await slice([later.settle]);
  const before = await observed('acc_inl_d', later.orderId);
  expect(await slice([activateOf(later.settle, later.followUpId)])).toEqual([]);
  const after = await observed('acc_inl_d', later.orderId);
  expect(after).toEqual(before);

  for (const seen of [seenSame, after]) {
    expect(seen.order).toEqual(expected.order);
    expect(seen.balance).toEqual(expected.balance);
    expect(seen.outbox).toEqual(expected.outbox);
    expect(seen.results.map((r) => [r.command_type, r.outcome, r.http_status])).toEqual(expected.results.map((r) => [r.command_type, r.outcome, r.http_status]));
  }
});

/** The follow-up exactly as older code wrote it to the log (settleOrder's followUps). */
function activateOf(settle: Command, commandId: string): Command {
  const s = settle as Extract<Command, { type: 'order.settle' }>;
  return { type: 'order.deliver', commandId, accountId: s.accountId, issuedAt: s.issuedAt, deadlineAt: null, replyTo: null, orderId: s.orderId, step: 'activate', txIds: [], at: s.deliveredAt };
}
