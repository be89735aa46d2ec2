/**
 * applySlice on the real PostgreSQL: a slice is applied on the assumption that the stored offset is its first
 * record (its reads sent behind BEGIN and the offset's lock); when the lock answers otherwise, nothing of that
 * attempt counts, not even a failure of its apply, and the slice is taken again from the stored offset.
 */
import { applySlice, storedOffsets, type CheckpointSpec, type Decoded } from '../../../services/platform/checkpointed-consumer';
import type { ConsumedRecord } from '../../../services/platform/kafka';
import type { Runtime } from '../../../services/runtime';
import { dropWorld, newWorld, openRuntime, type World } from '../../support/world';

let world: World;
let rt: Runtime;
beforeAll(async () => {
  world = newWorld('applyslice');
  rt = await openRuntime(world);
  await rt.pool.query('CREATE TABLE slice_rows (n bigint PRIMARY KEY)');
});
afterAll(async () => {
  await rt.close();
  await dropWorld(world);
});

const TOPIC = 'slice-test';
const GROUP = 'slice-group';
/** Applies each record's offset as a row: a record applied twice breaks the primary key (SQLSTATE 23505). */
const spec: CheckpointSpec<bigint, bigint> = {
  group: GROUP,
  topic: TOPIC,
  decode: async (r) => r.offset,
  apply: async (items, tx) => {
    await tx.query('INSERT INTO slice_rows SELECT unnest($1::bigint[])', [items.map((i) => i.value)]);
    return items.map((i) => i.value);
  },
};

function slice(from: number, to: number): Decoded<bigint>[] {
  return Array.from({ length: to - from + 1 }, (_, i) => {
    const record: ConsumedRecord = { topic: TOPIC, partition: 0, offset: BigInt(from + i), key: null, value: Buffer.from('x'), headers: {}, timestamp: Date.now() };
    return { record, value: record.offset };
  });
}
const rows = async () => (await rt.pool.query('SELECT n FROM slice_rows ORDER BY n')).rows.map((r) => Number(r.n));
const stored = async () => (await storedOffsets(rt.pool, GROUP, TOPIC)).get(0);

test('from the stored offset: applied, and the offset moves past the slice', async () => {
  expect(await applySlice(rt.pool, spec, 0, slice(0, 2))).toEqual({ results: [0n, 1n, 2n], last: 2n });
  expect(await rows()).toEqual([0, 1, 2]);
  expect(await stored()).toBe(3n);
});

test('a slice that starts before the stored offset: the attempt from its first record (its apply failing on the rows there) counts for nothing; the records from the stored offset are applied', async () => {
  expect(await applySlice(rt.pool, spec, 0, slice(1, 4))).toEqual({ results: [3n, 4n], last: 4n });
  expect(await rows()).toEqual([0, 1, 2, 3, 4]);
  expect(await stored()).toBe(5n);
});

test('a slice wholly before or after the stored offset: a seek to it, nothing applied', async () => {
  expect(await applySlice(rt.pool, spec, 0, slice(2, 4))).toEqual({ seekTo: 5n });
  expect(await applySlice(rt.pool, spec, 0, slice(7, 8))).toEqual({ seekTo: 5n });
  expect(await rows()).toEqual([0, 1, 2, 3, 4]);
  expect(await stored()).toBe(5n);
});

test('a failure of the apply at the stored offset is the slice\'s own: rethrown, nothing stored, the offset unmoved', async () => {
  await rt.pool.query('INSERT INTO slice_rows VALUES (6)');
  await expect(applySlice(rt.pool, spec, 0, slice(5, 6))).rejects.toMatchObject({ code: '23505' });
  expect(await rows()).toEqual([0, 1, 2, 3, 4, 6]);
  expect(await stored()).toBe(5n);
});
