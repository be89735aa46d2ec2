/** readTogether: several statements in one round trip, each part's rows back with their types, on one snapshot. */
import pg from 'pg';
import { createPool } from '../../services/platform/db/pool';
import { readTogether } from '../../services/platform/db/read-together';

let pool: pg.Pool;
let client: pg.PoolClient;

beforeAll(async () => {
  pool = createPool(process.env.DATABASE_URL as string, 1);
  client = await pool.connect();
  await client.query('CREATE TEMP TABLE things (id text PRIMARY KEY, n bigint NOT NULL, at timestamptz NOT NULL, doc jsonb)');
  await client.query(`INSERT INTO things VALUES ('a', 9007199254740993, '2026-01-02T03:04:05Z', '{"k": [1, "x"]}'), ('b', 2, now(), NULL), ('c', 3, now(), NULL)`);
});

afterAll(async () => {
  client.release();
  await pool.end();
});

it('answers each part with its own rows, typed as alone, all parts on the snapshot before any of them wrote', async () => {
  const countedRounds: string[] = [];
  const counting = { query: (...args: Parameters<pg.PoolClient['query']>) => (countedRounds.push('q'), (client.query as (...a: unknown[]) => unknown)(...args)) };
  const [inserted, read, none, counted] = await readTogether(counting as unknown as pg.PoolClient, [
    { sql: `INSERT INTO things (id, n, at) SELECT t, 1, now() FROM unnest($1::text[]) AS t ON CONFLICT (id) DO NOTHING RETURNING id`, params: [['a', 'new']] },
    { sql: 'SELECT id, n, at, doc FROM things WHERE id = ANY($1::text[]) ORDER BY id', params: [['a', 'b', 'new']] },
    { sql: 'SELECT id FROM things WHERE id = $1', params: ['missing'] },
    { sql: 'SELECT count(*)::int AS c, $1::text AS label FROM things', params: ['all'] },
  ]);
  expect(countedRounds).toHaveLength(1);
  expect(inserted).toEqual([{ id: 'new' }]);
  // The row the first part inserted is not seen by the others (one snapshot); the rest come back typed.
  expect(read.map((r) => r.id).sort()).toEqual(['a', 'b']);
  const a = read.find((r) => r.id === 'a') as Record<string, unknown>;
  expect(a.n).toBe(9007199254740993n);
  expect(a.at).toEqual(new Date('2026-01-02T03:04:05Z'));
  expect(a.doc).toEqual({ k: [1, 'x'] });
  expect(none).toEqual([]);
  expect(counted).toEqual([{ c: 3, label: 'all' }]);
  expect((await client.query('SELECT count(*)::int AS c FROM things')).rows[0].c).toBe(4);
});

it('sends a single part as it is and nothing for no part', async () => {
  expect(await readTogether(client, [])).toEqual([]);
  expect(await readTogether(client, [{ sql: 'SELECT $1::int AS one', params: [1] }])).toEqual([[{ one: 1 }]]);
});
