/**
 * WriteGroup.sendAndCommit (the checkpointed consumer's last round trip: tail writes, offset compare-and-set,
 * COMMIT in one simple query with the values written as literals) against the real PostgreSQL: every kind of
 * value the stores send stores exactly what the parameterised statement stores; a compare-and-set that does
 * not match commits nothing and fails as a retryable error (P0001), not a data error; U+0000 still fails as
 * a data error (class 22), as a parameter does.
 */
import { WriteGroup, type Statement } from '../../../services/platform/db/bulk';
import { inTransaction } from '../../../services/platform/db/pool';
import { isDeterministicFailure } from '../../../services/platform/checkpointed-consumer';
import type { Runtime } from '../../../services/platform/runtime';
import { dropWorld, newWorld, openRuntime, type World } from '../../support/world';

let world: World;
let rt: Runtime;

const columns = ['id', 'label', 'amount', 'count', 'small', 'body', 'bodies', 'tags', 'at', 'raw', 'flag'];

beforeAll(async () => {
  world = newWorld('writegroupcommit');
  rt = await openRuntime(world);
  await rt.pool.query(`CREATE TABLE wg_values (id text PRIMARY KEY, label text, amount bigint, count int, small smallint,
    body jsonb, bodies jsonb[], tags text[], at timestamptz, raw bytea, flag boolean)`);
  await rt.pool.query('CREATE TABLE wg_cas (id int PRIMARY KEY, n bigint NOT NULL)');
  await rt.pool.query('INSERT INTO wg_cas VALUES (1, 5)');
});

afterAll(async () => {
  await rt.close();
  await dropWorld(world);
});

const awkward = [
  "it's", 'back\\slash and \'quote\'', '$1 $2 dollars', 'ünïcödé ✓ 🎉', '', 'line\nbreak\ttab', '{"a":"b\\"c"}', 'E\'x\'',
];

function row(id: string, i: number): unknown[] {
  const text = awkward[i % awkward.length];
  return [
    id, text, 10n ** 18n + BigInt(i), i - 3, i % 7, JSON.stringify({ text, n: i, nested: [text, null] }),
    [JSON.stringify({ text }), null, JSON.stringify([1, 'two'])], [text, null, 'plain', '"quoted"', 'a,b', '{x}'],
    new Date(1_764_000_000_000 + i * 1_234), Buffer.from([0, 1, 2, 255, i]), i % 2 === 0,
  ];
}

const cas = (expected: bigint, next: bigint): Statement => ({ sql: 'UPDATE wg_cas SET n = $2 WHERE id = 1 AND n = $1 RETURNING 1', params: [expected, next] });

test('literal values store exactly what parameters store, and the compare-and-set moves', async () => {
  const viaParams = new WriteGroup().insertRows('wg_values', columns, awkward.map((_, i) => row(`p${i}`, i)));
  await inTransaction(rt.pool, async (client) => void (await viaParams.send(client)));
  const viaLiterals = new WriteGroup().insertRows('wg_values', columns, awkward.map((_, i) => row(`l${i}`, i))).notify('wg_test');
  let committed = false;
  await inTransaction(rt.pool, async (client, _rows, done) => {
    await viaLiterals.sendAndCommit(client, cas(5n, 6n), 'wg_cas moved');
    done();
    committed = true;
  });
  expect(committed).toBe(true);
  const read = async (prefix: string) => (await rt.pool.query(
    `SELECT substr(id, 2) AS k, label, amount::text, count, small, body, bodies::text, tags, at, raw, flag FROM wg_values WHERE id LIKE $1 ORDER BY k`, [`${prefix}%`],
  )).rows;
  const params = await read('p');
  expect(params).toHaveLength(awkward.length);
  expect(await read('l')).toEqual(params);
  expect(params[1].label).toBe(awkward[1]);
  expect((await rt.pool.query('SELECT n FROM wg_cas')).rows[0].n).toBe(6n);
});

test('a compare-and-set that matches no row commits nothing and is retryable, not a refusal', async () => {
  const group = new WriteGroup().insertRows('wg_values', columns, [row('x1', 1)]);
  const failed = await inTransaction(rt.pool, async (client, _rows, done) => {
    await group.sendAndCommit(client, cas(99n, 100n), 'wg_cas moved under us');
    done();
  }).then(() => undefined, (err: unknown) => err as Error & { code?: string });
  expect(failed?.code).toBe('P0001');
  expect(failed?.message).toContain('wg_cas moved under us');
  expect(isDeterministicFailure(failed)).toBe(false);
  expect((await rt.pool.query("SELECT count(*)::int AS n FROM wg_values WHERE id = 'x1'")).rows[0].n).toBe(0);
  expect((await rt.pool.query('SELECT n FROM wg_cas')).rows[0].n).toBe(6n);
});

test('U+0000 in a value fails as a data error (class 22), as a parameter does, and commits nothing', async () => {
  const group = new WriteGroup().insertRows('wg_values', columns, [['nul', 'a\u0000b', 1n, 1, 1, '{}', [], [], new Date(), Buffer.alloc(0), true]]);
  const failed = await inTransaction(rt.pool, async (client, _rows, done) => {
    await group.sendAndCommit(client, cas(6n, 7n), 'wg_cas moved');
    done();
  }).then(() => undefined, (err: unknown) => err as Error & { code?: string });
  expect(failed?.code?.startsWith('22')).toBe(true);
  expect(isDeterministicFailure(failed)).toBe(true);
  expect((await rt.pool.query('SELECT n FROM wg_cas')).rows[0].n).toBe(6n);
});
