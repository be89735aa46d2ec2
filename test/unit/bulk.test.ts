/** The SQL the bulk writers build: placeholders, the upsert's conflict target and SET list, splitting. */
import { insertRows, upsertRows, WriteGroup } from '../../services/platform/db/bulk';
import type { PoolClient } from '../../services/platform/db/pool';

interface Sent {
  sql: string;
  params: unknown[];
}

/** A client that records each statement and reports every row written. */
function recorder(): { client: PoolClient; sent: Sent[] } {
  const sent: Sent[] = [];
  const client = {
    query: async (sql: string, params: unknown[]) => {
      sent.push({ sql, params });
      return { rowCount: params.length, rows: [{ counted: 1 }] };
    },
  } as unknown as PoolClient;
  return { client, sent };
}

const columns = ['id', 'account_id', 'label', 'created_at'] as const;

describe('upsertRows', () => {
  it('updates every column but the key and the kept ones from EXCLUDED', async () => {
    const { client, sent } = recorder();
    await upsertRows(client, 'things', columns, [['a', 'acc', 'x', 1], ['b', 'acc', 'y', 2]], { key: 'id', keep: ['created_at'] });
    expect(sent).toEqual([{
      sql: 'INSERT INTO things ("id", "account_id", "label", "created_at") VALUES ($1, $2, $3, $4), ($5, $6, $7, $8) '
        + 'ON CONFLICT ("id") DO UPDATE SET "account_id" = EXCLUDED."account_id", "label" = EXCLUDED."label"',
      params: ['a', 'acc', 'x', 1, 'b', 'acc', 'y', 2],
    }]);
  });

  it('takes a composite conflict target in the order given', async () => {
    const { client, sent } = recorder();
    await upsertRows(client, 'members', ['account_id', 'address', 'role'], [['acc', 'T1', 'admin']], { key: ['account_id', 'address'] });
    expect(sent[0].sql).toBe(
      'INSERT INTO members ("account_id", "address", "role") VALUES ($1, $2, $3) ON CONFLICT ("account_id", "address") DO UPDATE SET "role" = EXCLUDED."role"',
    );
  });

  it('does nothing on conflict when every column is key or kept', async () => {
    const { client, sent } = recorder();
    await upsertRows(client, 'things', columns, [['a', 'acc', 'x', 1]], { key: 'id', keep: ['account_id', 'label', 'created_at'] });
    expect(sent[0].sql).toMatch(/ ON CONFLICT \("id"\) DO NOTHING$/);
  });

  it('writes nothing for no rows', async () => {
    const { client, sent } = recorder();
    expect(await upsertRows(client, 'things', columns, [], { key: 'id' })).toBe(0);
    expect(sent).toEqual([]);
  });

  it('refuses a key or kept column that is not in the list', async () => {
    const { client, sent } = recorder();
    const loose: readonly string[] = columns;
    await expect(upsertRows(client, 'things', loose, [['a', 'acc', 'x', 1]], { key: 'uid' })).rejects.toThrow('uid is not one of its columns');
    await expect(upsertRows(client, 'things', loose, [['a', 'acc', 'x', 1]], { key: 'id', keep: ['created'] })).rejects.toThrow('created');
    await expect(upsertRows(client, 'things', loose, [['a', 'acc', 'x', 1]], { key: [] })).rejects.toThrow('empty conflict key');
    expect(sent).toEqual([]);
  });

  it('splits like insertRows, each statement carrying the same ON CONFLICT clause', async () => {
    const { client, sent } = recorder();
    const wide = Array.from({ length: 10_000 }, (_, i) => `c${i}`);
    const rows = Array.from({ length: 7 }, (_, r) => wide.map((_, i) => r * 10_000 + i));
    const written = await upsertRows(client, 'wide', wide, rows, { key: 'c0' });
    // 30,000 parameters per statement at most: three rows of 10,000 columns each.
    expect(sent.map((s) => s.params.length)).toEqual([30_000, 30_000, 10_000]);
    expect(written).toBe(70_000);
    for (const s of sent) expect(s.sql.endsWith(`"c9999" = EXCLUDED."c9999"`)).toBe(true);
    expect(new Set(sent.map((s) => s.sql.slice(s.sql.indexOf(' ON CONFLICT')))).size).toBe(1);
  });
});

describe('insertRows', () => {
  it('numbers placeholders across rows and appends the suffix', async () => {
    const { client, sent } = recorder();
    await insertRows(client, 'outbox', ['a', 'b'], [[1, 2], [3, 4]], 'ON CONFLICT (a) DO NOTHING');
    expect(sent).toEqual([{ sql: 'INSERT INTO outbox ("a", "b") VALUES ($1, $2), ($3, $4) ON CONFLICT (a) DO NOTHING', params: [1, 2, 3, 4] }]);
  });
});

describe('WriteGroup', () => {
  it('sends its statements as data-modifying CTEs of one statement, placeholders renumbered', async () => {
    const { client, sent } = recorder();
    const group = new WriteGroup()
      .insertRows('journals', ['id', 'memo'], [['j1', 'm'], ['j2', null]])
      .add({ sql: 'UPDATE command_results SET outcome = $2 WHERE command_id = $1', params: ['c1', 'applied'] });
    expect(await group.send(client)).toBeNull();
    expect(sent).toEqual([{
      sql: 'WITH w0 AS (INSERT INTO journals ("id", "memo") VALUES ($1, $2), ($3, $4) ), '
        + 'w1 AS (UPDATE command_results SET outcome = $6 WHERE command_id = $5) SELECT NULL::int AS counted',
      params: ['j1', 'm', 'j2', null, 'c1', 'applied'],
    }]);
    // Sent once: the group is empty afterwards.
    expect(await group.send(client)).toBeNull();
    expect(sent).toHaveLength(1);
  });

  it('counts the rows of the checked last part and sends the notifications with it', async () => {
    const { client, sent } = recorder();
    const group = new WriteGroup().upsertRows('things', columns, [['a', 'acc', 'x', 1]], { key: 'id' }).notify('outbox');
    expect(await group.send(client, { sql: 'UPDATE offsets SET n = $2 WHERE n = $1 RETURNING 1', params: [1n, 2n] })).toBe(1);
    expect(sent[0].sql).toMatch(/^WITH w0 AS \(INSERT INTO things .* ON CONFLICT \("id"\) DO UPDATE SET .*\), w1 AS \(UPDATE offsets SET n = \$6 WHERE n = \$5 RETURNING 1\) SELECT \(SELECT count\(\*\) FROM w1\)::int AS counted, pg_notify\('outbox', ''\)$/);
    expect(sent[0].params).toEqual(['a', 'acc', 'x', 1, 1n, 2n]);
  });

  it('refuses itself in SQL when the checked count is not the one required, the reason its last parameter', async () => {
    const { client, sent } = recorder();
    const group = new WriteGroup().insertRows('things', ['id'], [['a']]);
    expect(await group.send(client, { sql: 'UPDATE offsets SET n = $2 WHERE n = $1 RETURNING 1', params: [1n, 2n] }, { count: 1, reason: 'offset moved' })).toBe(1);
    expect(sent[0].sql).toContain('SELECT CASE WHEN (SELECT count(*) FROM w1)::int = 1 THEN (SELECT count(*) FROM w1)::int ELSE refuse_statement($4::text) END AS counted');
    expect(sent[0].params).toEqual(['a', 1n, 2n, 'offset moved']);
  });

  it('issues every statement of a split group before the first is answered (pipelined, in order)', async () => {
    const issued: string[] = [];
    let release!: () => void;
    const answered = new Promise<void>((r) => { release = r; });
    const client = {
      query: async (sql: string) => {
        issued.push(sql);
        await answered;
        return { rows: [{ counted: 1 }] };
      },
    } as unknown as PoolClient;
    const wide = Array.from({ length: 10_000 }, (_, i) => `c${i}`);
    const rows = Array.from({ length: 7 }, (_, r) => wide.map((_, i) => r * 10_000 + i));
    const sending = new WriteGroup().insertRows('wide', wide, rows).send(client);
    expect(issued).toHaveLength(2);
    release();
    await sending;
  });

  it('goes as several statements, in order, past the parameter limit; the checked part in the last', async () => {
    const { client, sent } = recorder();
    const wide = Array.from({ length: 10_000 }, (_, i) => `c${i}`);
    const rows = Array.from({ length: 7 }, (_, r) => wide.map((_, i) => r * 10_000 + i));
    const group = new WriteGroup().insertRows('wide', wide, rows).notify('outbox');
    await group.send(client, { sql: 'UPDATE offsets SET n = $1 RETURNING 1', params: [1] });
    // Three INSERTs of 30,000, 30,000 and 10,000 parameters; at most 60,000 per statement.
    expect(sent.map((s) => s.params.length)).toEqual([60_000, 10_001]);
    expect(sent[0].sql).not.toContain('pg_notify');
    expect(sent[1].sql).toContain('w1 AS (UPDATE offsets SET n = $10001 RETURNING 1)');
    expect(sent[1].sql).toContain("pg_notify('outbox', '')");
  });

  it('settles only once a write it follows is answered, and fails with that write\'s error', async () => {
    const { client, sent } = recorder();
    let answer!: () => void;
    const earlier = new Promise<void>((r) => { answer = r; });
    let settled = false;
    const sending = new WriteGroup().insertRows('t', ['a'], [['x']]).follows(earlier).send(client).then(() => { settled = true; });
    // Its own statement is issued at once, not after the earlier write's answer.
    expect(sent).toHaveLength(1);
    await new Promise((r) => setImmediate(r));
    expect(settled).toBe(false);
    answer();
    await sending;
    expect(settled).toBe(true);
    const failed = Object.assign(new Error('duplicate key'), { code: '23505' });
    const empty = new WriteGroup().follows(Promise.reject(failed)).send(client);
    await expect(empty).rejects.toBe(failed);
    const refused = new WriteGroup().insertRows('t', ['a'], [['y']]).follows(Promise.reject(failed)).send(client);
    await expect(refused).rejects.toBe(failed);
    // The earlier write's error is the one reported even when its statement's own "aborted" settles first.
    const aborted = Object.assign(new Error('current transaction is aborted'), { code: '25P02' });
    const failingClient = { query: async () => { throw aborted; } } as unknown as PoolClient;
    const later = new Promise((_, reject) => setTimeout(() => reject(failed), 10));
    later.catch(() => undefined);
    await expect(new WriteGroup().insertRows('t', ['a'], [['z']]).follows(later).send(failingClient)).rejects.toBe(failed);
  });

  it('sends nothing when empty', async () => {
    const { client, sent } = recorder();
    expect(await new WriteGroup().insertRows('t', ['a'], []).send(client)).toBeNull();
    expect(sent).toEqual([]);
  });
});

describe('column arrays (insertArrays, upsertArrays)', () => {
  const typed = [['id', 'text'], ['account_id', 'text'], ['amount', 'bigint'], ['created_at', 'timestamptz']] as const;

  it('sends one array per column, the same text whatever the row count', async () => {
    const { client, sent } = recorder();
    const at = new Date(0);
    await new WriteGroup().insertArrays('journals', typed, [['j1', 'acc', 5n, at], ['j2', 'acc', null, at]], 'ON CONFLICT (id) DO NOTHING').send(client);
    await new WriteGroup().insertArrays('journals', typed, [['j3', 'acc', 7n, at]], 'ON CONFLICT (id) DO NOTHING').send(client);
    const sql = 'WITH w0 AS (INSERT INTO journals ("id", "account_id", "amount", "created_at") SELECT * FROM unnest($1::text[], $2::text[], '
      + '$3::bigint[], $4::timestamptz[]) ON CONFLICT (id) DO NOTHING) SELECT NULL::int AS counted';
    expect(sent.map((s) => s.sql)).toEqual([sql, sql]);
    expect(sent[0].params).toEqual([['j1', 'j2'], ['acc', 'acc'], [5n, null], [at, at]]);
  });

  it('upserts with the same conflict clause as upsertRows, and adds nothing for no rows', async () => {
    const { client, sent } = recorder();
    const group = new WriteGroup().upsertArrays('things', typed, [['a', 'acc', 1n, null]], { key: 'id', keep: ['created_at'] }).insertArrays('t', typed, []);
    expect(group.size).toBe(1);
    await group.send(client);
    expect(sent[0].sql).toContain('SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::timestamptz[]) '
      + 'ON CONFLICT ("id") DO UPDATE SET "account_id" = EXCLUDED."account_id", "amount" = EXCLUDED."amount")');
  });
});
