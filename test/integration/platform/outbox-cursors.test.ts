/**
 * The relay's cursor per partition on the real PostgreSQL and Kafka: a row is published once its
 * transaction commits, also when a row of another partition with a higher id was published before it; a
 * row written before the cursors existed (source_partition null) is published and marked as before; a
 * published row is not sent again; what is left shows in outbox_unpublished.
 */
import type { Command } from '../../../services/domain/commands';
import { randomId } from '../../../services/domain/ids';
import { WriteGroup } from '../../../services/platform/db/bulk';
import { refusalMarker } from '../../../services/processor/apply-batch';
import { saveOutbox } from '../../../services/processor/store';
import { publishOnce } from '../../../services/relay/relay';
import type { Runtime } from '../../../services/runtime';
import { readTopic } from '../../support/topic-reader';
import { dropWorld, newWorld, openRuntime, type World } from '../../support/world';

let world: World;
let rt: Runtime;
beforeAll(async () => {
  world = newWorld('outboxcursors');
  rt = await openRuntime(world);
});
afterAll(async () => {
  await rt.close();
  await dropWorld(world);
});

/** A refusal marker of a fresh command: an account-commands row any codec encodes. */
function marker(): { commandId: string; row: ReturnType<typeof refusalMarker> } {
  const command: Command = {
    type: 'balance.adjust', commandId: randomId('command'), accountId: randomId('account'), amountSun: 1n, memo: 'cursor test',
    issuedAt: Date.now(), deadlineAt: null, replyTo: null,
  } as Command;
  const row = refusalMarker(command, 'unprocessable');
  return { commandId: (row.payload as { commandId: string }).commandId, row };
}

const publish = () => publishOnce({ log: rt.log, codec: rt.codec, pool: rt.pool });
const unpublished = async () => (await rt.pool.query('SELECT message_id FROM outbox_unpublished ORDER BY id')).rows.map((r) => r.message_id as string);
const onLog = async () => (await readTopic<{ commandId: string }>(rt, 'accountCommands')).map((r) => r.value.commandId);

test('a row committed after a higher id of another partition was published is still published, once', async () => {
  const early = marker();
  const late = marker();
  // Partition 1's slice takes the lower id and stays open while partition 2's commits and is published.
  const open = await rt.pool.connect();
  try {
    await open.query('BEGIN');
    const first = new WriteGroup();
    saveOutbox(first, [early.row], 1);
    await first.send(open);
    const client = await rt.pool.connect();
    try {
      await client.query('BEGIN');
      const second = new WriteGroup();
      saveOutbox(second, [late.row], 2);
      await second.send(client);
      await client.query('COMMIT');
    } finally {
      client.release();
    }
    const ids = (await rt.pool.query('SELECT message_id, id FROM outbox ORDER BY id')).rows;
    expect(ids.map((r) => r.message_id)).toEqual([late.row.messageId]);
    expect(await publish()).toBe(1);
    expect(await unpublished()).toEqual([]);
    await open.query('COMMIT');
  } finally {
    open.release();
  }
  const order = (await rt.pool.query('SELECT message_id FROM outbox ORDER BY id')).rows.map((r) => r.message_id);
  expect(order).toEqual([early.row.messageId, late.row.messageId]);
  expect(await unpublished()).toEqual([early.row.messageId]);
  expect(await publish()).toBe(1);
  expect(await publish()).toBe(0);
  expect(await unpublished()).toEqual([]);
  const log = await onLog();
  expect(log.filter((id) => id === early.commandId)).toHaveLength(1);
  expect(log.filter((id) => id === late.commandId)).toHaveLength(1);
  const cursors = (await rt.pool.query('SELECT source_partition, published_through FROM outbox_cursors ORDER BY source_partition')).rows;
  expect(cursors.map((c) => c.source_partition)).toEqual([1, 2]);
});

test('a row from before the cursors (no partition) is published and marked; a later row of a partition after it', async () => {
  const legacy = marker();
  const current = marker();
  await rt.pool.query(
    `INSERT INTO outbox (destination, message_id, account_id, payload, created_at) VALUES ('account-commands', $1, $2, $3, now())`,
    [legacy.row.messageId, legacy.row.accountId, JSON.stringify(legacy.row.payload)],
  );
  const client = await rt.pool.connect();
  try {
    const writes = new WriteGroup();
    saveOutbox(writes, [current.row], 3);
    await writes.send(client);
  } finally {
    client.release();
  }
  expect(await unpublished()).toEqual([legacy.row.messageId, current.row.messageId]);
  expect(await publish()).toBe(2);
  expect(await unpublished()).toEqual([]);
  const { rows } = await rt.pool.query('SELECT message_id, published_at IS NOT NULL AS marked FROM outbox WHERE message_id = ANY($1)', [[legacy.row.messageId, current.row.messageId]]);
  expect(Object.fromEntries(rows.map((r) => [r.message_id, r.marked]))).toEqual({ [legacy.row.messageId]: true, [current.row.messageId]: false });
  const log = await onLog();
  expect(log.indexOf(legacy.commandId)).toBeGreaterThanOrEqual(0);
  expect(log.filter((id) => id === current.commandId)).toHaveLength(1);
});
