import type { PoolClient } from './pool';

// PostgreSQL takes at most 65,535 parameters per statement; stay well below.
const MAX_PARAMS = 30_000;

export interface Statement {
  sql: string;
  params: unknown[];
}

/** The multi-row INSERT statements for `rows`, split so no statement exceeds the parameter limit. */
export function insertStatements(table: string, columns: readonly string[], rows: unknown[][], suffix = ''): Statement[] {
  const perStatement = Math.max(1, Math.floor(MAX_PARAMS / columns.length));
  const statements: Statement[] = [];
  for (let start = 0; start < rows.length; start += perStatement) {
    const chunk = rows.slice(start, start + perStatement);
    const params: unknown[] = [];
    const tuples = chunk.map((row) => {
      const placeholders = row.map((value) => {
        params.push(value);
        return `$${params.length}`;
      });
      return `(${placeholders.join(', ')})`;
    });
    statements.push({ sql: `INSERT INTO ${table} (${columns.map((c) => `"${c}"`).join(', ')}) VALUES ${tuples.join(', ')} ${suffix}`, params });
  }
  return statements;
}

/** Multi-row INSERT, split so no statement exceeds the parameter limit. `suffix` may add ON CONFLICT. */
export async function insertRows(
  client: PoolClient,
  table: string,
  columns: readonly string[],
  rows: unknown[][],
  suffix = '',
): Promise<number> {
  let inserted = 0;
  for (const { sql, params } of insertStatements(table, columns, rows, suffix)) {
    const result = await client.query(sql, params);
    inserted += result.rowCount ?? 0;
  }
  return inserted;
}

export interface UpsertOptions<C extends string> {
  /** The conflict target: the primary key or a unique constraint's columns. */
  key: C | readonly C[];
  /** Columns an existing row keeps (never rewritten), besides the key; every other column takes the new value. */
  keep?: readonly C[];
}

/** The suffix `ON CONFLICT (key) DO UPDATE SET c = EXCLUDED.c ...` of an upsert (see upsertRows). */
function upsertSuffix<C extends string>(table: string, columns: readonly C[], options: UpsertOptions<C>): string {
  const key: readonly C[] = typeof options.key === 'string' ? [options.key] : options.key;
  const fixed = new Set<C>([...key, ...(options.keep ?? [])]);
  // A name outside the column list is a typo that would silently update (or keep) the wrong thing.
  for (const c of fixed) if (!columns.includes(c)) throw new Error(`upsertRows ${table}: ${c} is not one of its columns`);
  if (key.length === 0) throw new Error(`upsertRows ${table}: empty conflict key`);
  const updates = columns.filter((c) => !fixed.has(c)).map((c) => `"${c}" = EXCLUDED."${c}"`);
  const action = updates.length === 0 ? 'DO NOTHING' : `DO UPDATE SET ${updates.join(', ')}`;
  return `ON CONFLICT (${key.map((c) => `"${c}"`).join(', ')}) ${action}`;
}

/**
 * Multi-row INSERT ... ON CONFLICT (key) DO UPDATE SET c = EXCLUDED.c for every column but the key and `keep`
 * (DO NOTHING when that leaves none). Split as `insertRows` splits; returns the rows inserted or updated.
 */
export async function upsertRows<C extends string>(
  client: PoolClient,
  table: string,
  columns: readonly C[],
  rows: unknown[][],
  options: UpsertOptions<C>,
): Promise<number> {
  const suffix = upsertSuffix(table, columns, options);
  return insertRows(client, table, columns, rows, suffix);
}

/**
 * Columns with the PostgreSQL type of each (the element type of its array): `[['id', 'text'], ['amount', 'bigint']]`.
 * The types are written into the SQL, never values.
 */
export type TypedColumns<C extends string = string> = ReadonlyArray<readonly [C, string]>;

/**
 * One INSERT of any number of rows with one array parameter per column:
 * `INSERT INTO t (a, b) SELECT * FROM unnest($1::text[], $2::bigint[]) suffix`. Its text is the same whatever the
 * row count, so PostgreSQL parses a short statement instead of a placeholder per value (a 37-column upsert of
 * 50 rows is 1,850 placeholders as VALUES), and the text recurs (pg_stat_statements shows one entry). Rows are
 * inserted in array order (the outbox's ids follow it, as with VALUES).
 */
export function arrayInsert(table: string, columns: TypedColumns, rows: unknown[][], suffix = ''): Statement {
  const params = columns.map((_, i) => rows.map((row) => row[i]));
  const arrays = columns.map(([, type], i) => `$${i + 1}::${type}[]`).join(', ');
  return { sql: `INSERT INTO ${table} (${columns.map(([c]) => `"${c}"`).join(', ')}) SELECT * FROM unnest(${arrays}) ${suffix}`, params };
}

/** PostgreSQL's limit of parameters per statement is 65,535; a group's statement stays below this. */
const MAX_GROUP_PARAMS = 60_000;

/**
 * Writes sent together: every statement added becomes a data-modifying CTE of ONE statement (one round trip
 * instead of one each). For writes to different tables that do not read each other's rows within the group:
 * the parts run on one snapshot and none sees another's rows (foreign keys are checked at the end of the
 * statement, so a row and the rows referencing it may be in the same group). Rows of one table must not be
 * written twice in a group. A group past the parameter limit goes as several statements, in order.
 */
export class WriteGroup {
  private readonly parts: Statement[] = [];
  private readonly notices = new Set<string>();
  private readonly earlier: Promise<unknown>[] = [];

  get size(): number {
    return this.parts.length;
  }

  add(statement: Statement): this {
    this.parts.push(statement);
    return this;
  }

  insertRows(table: string, columns: readonly string[], rows: unknown[][], suffix = ''): this {
    for (const statement of insertStatements(table, columns, rows, suffix)) this.parts.push(statement);
    return this;
  }

  upsertRows<C extends string>(table: string, columns: readonly C[], rows: unknown[][], options: UpsertOptions<C>): this {
    const suffix = upsertSuffix(table, columns, options);
    return this.insertRows(table, columns, rows, suffix);
  }

  /** Like insertRows, as one statement of column arrays (arrayInsert): the same text whatever the row count. */
  insertArrays(table: string, columns: TypedColumns, rows: unknown[][], suffix = ''): this {
    if (rows.length > 0) this.parts.push(arrayInsert(table, columns, rows, suffix));
    return this;
  }

  /** Like upsertRows, as one statement of column arrays (arrayInsert). */
  upsertArrays<C extends string>(table: string, columns: TypedColumns<C>, rows: unknown[][], options: UpsertOptions<C>): this {
    return this.insertArrays(table, columns, rows, upsertSuffix(table, columns.map(([c]) => c), options));
  }

  /** A NOTIFY on `channel` (no payload) sent with the last statement of the group. */
  notify(channel: string): this {
    this.notices.add(channel);
    return this;
  }

  /**
   * A write already issued on the same client, ahead of this group: `send` settles only once it is answered,
   * and fails with its error (answered first, the pipelined client keeping the order). Its round trip is
   * then this group's: nothing waits for it in between.
   */
  follows(issued: Promise<unknown>): this {
    this.earlier.push(issued);
    return this;
  }

  /**
   * Sends the group. `checked` (optional) is a last part whose rows are counted: the count is returned
   * (e.g. a compare-and-set UPDATE ... RETURNING 1), else null. With `refuseUnless`, a count other than
   * `refuseUnless.count` makes the statement raise (refuse_statement, SQLSTATE P0001, the reason as its
   * message): the check holds even when the group's answer comes after the COMMIT queued behind it.
   * A group past the parameter limit is several statements, issued at once and run in order (the pool's
   * clients pipeline).
   */
  async send(client: PoolClient, checked?: Statement, refuseUnless?: { count: number; reason: string }): Promise<number | null> {
    const parts = checked ? [...this.parts, checked] : this.parts;
    const earlier = Promise.all(this.earlier.splice(0));
    if (parts.length === 0 && this.notices.size === 0) {
      await earlier;
      return null;
    }
    const statements: Statement[] = [];
    let start = 0;
    do {
      let end = start;
      let total = 0;
      while (end < parts.length && (end === start || total + parts[end].params.length <= MAX_GROUP_PARAMS)) total += parts[end++].params.length;
      const last = end >= parts.length;
      const chunk = parts.slice(start, end);
      const params: unknown[] = [];
      const ctes = chunk.map((part, i) => {
        const offset = params.length;
        params.push(...part.params);
        return `w${i} AS (${offset === 0 ? part.sql : part.sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`)})`;
      });
      let counted = 'NULL::int';
      if (last && checked) {
        const count = `(SELECT count(*) FROM w${chunk.length - 1})::int`;
        if (refuseUnless) {
          params.push(refuseUnless.reason);
          counted = `CASE WHEN ${count} = ${Math.trunc(refuseUnless.count)} THEN ${count} ELSE refuse_statement($${params.length}::text) END`;
        } else counted = count;
      }
      const notices = last ? [...this.notices].map((c) => `, pg_notify('${c.replace(/'/g, "''")}', '')`).join('') : '';
      statements.push({ sql: `${ctes.length ? `WITH ${ctes.join(', ')} ` : ''}SELECT ${counted} AS counted${notices}`, params });
      start = end;
    } while (start < parts.length);
    this.parts.length = 0;
    this.notices.clear();
    const sent = Promise.all(statements.map((st) => client.query(st.sql, st.params)));
    let answers: Awaited<typeof sent>;
    try {
      [, answers] = await Promise.all([earlier, sent]);
    } catch (err) {
      // Answered in the order issued, but settled through different chains of promises: when an earlier write
      // failed, its error is the one to report (a statement behind it only says the transaction is aborted).
      await earlier;
      throw err;
    }
    return checked ? (answers[answers.length - 1].rows[0].counted as number) : null;
  }
}
