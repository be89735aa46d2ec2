/**
 * A transaction's last writes sent with its COMMIT (inTransaction's commitWith, the pool's clients pipelining),
 * on the real PostgreSQL: the writes commit with it, and a checked write that refuses itself takes the whole
 * transaction back, so nothing of it is stored.
 */
import { WriteGroup } from '../../../services/platform/db/bulk';
import { createPool, inTransaction, type Pool } from '../../../services/platform/db/pool';
import type { Runtime } from '../../../services/runtime';
import { dropWorld, newWorld, openRuntime, type World } from '../../support/world';

let world: World;
let rt: Runtime;
let pool: Pool;
beforeAll(async () => {
  // A world's database: every migration (refuse_statement among them).
  world = newWorld('commitwith');
  rt = await openRuntime(world);
  // One connection: the temporary tables below live in its session.
  pool = createPool(world.cfg.DATABASE_URL, 1, 1);
  await pool.query('CREATE TEMP TABLE cw_rows (id text PRIMARY KEY); CREATE TEMP TABLE cw_offsets (n bigint); INSERT INTO cw_offsets VALUES (5)');
});
afterAll(async () => {
  await pool.end();
  await rt.close();
  await dropWorld(world);
});

const advance = (expected: bigint) => ({ sql: 'UPDATE cw_offsets SET n = n + 1 WHERE n = $1 RETURNING 1', params: [expected] });
const stored = async () => (await pool.query('SELECT id FROM cw_rows ORDER BY id')).rows.map((r) => r.id);

test('the last writes commit with the COMMIT, the checked count answered', async () => {
  let counted: Promise<number | null> | undefined;
  await inTransaction(pool, async (client, _rows, commitWith) => {
    await client.query("INSERT INTO cw_rows VALUES ('early')");
    const group = new WriteGroup().insertRows('cw_rows', ['id'], [['late']]);
    commitWith(() => (counted = group.send(client, advance(5n), { count: 1, reason: 'offset moved' })));
  });
  expect(await counted).toBe(1);
  expect(await stored()).toEqual(['early', 'late']);
  expect((await pool.query('SELECT n FROM cw_offsets')).rows[0].n).toBe(6n);
});

test('a checked write that finds the wrong count refuses itself, and the COMMIT behind it stores nothing', async () => {
  const attempt = inTransaction(pool, async (client, _rows, commitWith) => {
    await client.query("INSERT INTO cw_rows VALUES ('refused-early')");
    const group = new WriteGroup().insertRows('cw_rows', ['id'], [['refused-late']]);
    // The stored offset is 6 now: the compare-and-set finds no row.
    commitWith(() => group.send(client, advance(5n), { count: 1, reason: 'offset moved' }));
  });
  await expect(attempt).rejects.toMatchObject({ code: 'P0001', message: 'offset moved' });
  expect(await stored()).toEqual(['early', 'late']);
  expect((await pool.query('SELECT n FROM cw_offsets')).rows[0].n).toBe(6n);
  // The connection is usable after the refusal (rolled back, not left in an aborted transaction).
  expect((await pool.query('SELECT 1 AS one')).rows[0].one).toBe(1);
});

test('a first group not awaited, the last following it with the COMMIT: both commit; when the first fails, its error is the one reported and nothing is stored', async () => {
  await inTransaction(pool, async (client, _rows, commitWith) => {
    const first = new WriteGroup().insertRows('cw_rows', ['id'], [['first']]).send(client);
    const last = new WriteGroup().insertRows('cw_rows', ['id'], [['last']]).follows(first);
    commitWith(() => last.send(client));
  });
  expect(await stored()).toEqual(['early', 'first', 'last', 'late'].sort());
  const attempt = inTransaction(pool, async (client, _rows, commitWith) => {
    // 'first' is there already: the unique key refuses the row, and the transaction with it.
    const first = new WriteGroup().insertRows('cw_rows', ['id'], [['again'], ['first']]).send(client);
    first.catch(() => undefined);
    const last = new WriteGroup().insertRows('cw_rows', ['id'], [['after']]).follows(first);
    commitWith(() => last.send(client));
  });
  await expect(attempt).rejects.toMatchObject({ code: '23505' });
  expect(await stored()).toEqual(['early', 'first', 'last', 'late'].sort());
});

test('reads issued together on one client are answered each with its own rows, in order', async () => {
  const client = await pool.connect();
  try {
    const answers = await Promise.all([1, 2, 3].map((n) => client.query('SELECT $1::int AS n', [n])));
    expect(answers.map((a) => a.rows[0].n)).toEqual([1, 2, 3]);
    // A failing query in the middle fails alone outside a transaction; the ones around it answer.
    const settled = await Promise.allSettled([client.query('SELECT 1 AS n'), client.query('SELECT 1/0'), client.query('SELECT 3 AS n')]);
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  } finally {
    client.release();
  }
});
