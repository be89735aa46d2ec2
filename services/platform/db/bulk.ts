import pg from 'pg';
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

  /** A NOTIFY on `channel` (no payload) sent with the last statement of the group. */
  notify(channel: string): this {
    this.notices.add(channel);
    return this;
  }

  /**
   * Sends the group. `checked` (optional) is a last part whose rows are counted: the count is returned
   * (e.g. a compare-and-set UPDATE ... RETURNING 1), else null.
   */
  async send(client: PoolClient, checked?: Statement): Promise<number | null> {
    let count: number | null = null;
    for (const { sql, params, last } of this.statements(checked, (n) => `(SELECT count(*) FROM ${n})::int`)) {
      const { rows } = await client.query(sql, params);
      if (last && checked) count = rows[0].counted as number;
    }
    this.clear();
    return count;
  }

  /**
   * Sends the group and COMMIT in ONE round trip (a simple query, the parameters written as literals), for a
   * transaction whose last writes these are. `checked`'s rows must count exactly 1 (a compare-and-set), or the
   * statement fails with SQLSTATE P0001 naming `what` (assert_one_row, migrations/1764440000000) and the
   * COMMIT after it is not run: nothing commits, as when `send`'s count is checked before a separate COMMIT.
   * A value holding U+0000 (which the text of a simple query cannot carry) goes the two-trip way, so it fails
   * as a parameter does (class 22), not as a cut-off statement.
   */
  async sendAndCommit(client: PoolClient, checked: Statement, what: string): Promise<void> {
    const parts = [...this.parts, checked];
    if (parts.some((p) => p.params.some(holdsNul))) {
      const count = await this.send(client, checked);
      if (count !== 1) throw new Error(`${what}: ${count} rows, expected 1`);
      await client.query('COMMIT');
      return;
    }
    const label = pg.escapeLiteral(what);
    const sql = [...this.statements(checked, (n) => `assert_one_row((SELECT count(*) FROM ${n})::int, ${label})`)]
      .map((statement) => inlineParams(statement.sql, statement.params));
    await client.query(`${sql.join(';\n')};\nCOMMIT`);
    this.clear();
  }

  /** The group as statements of at most MAX_GROUP_PARAMS parameters, in order; the last counts `checked` with `count`. */
  private *statements(checked: Statement | undefined, count: (cte: string) => string): Generator<Statement & { last: boolean }> {
    const parts = checked ? [...this.parts, checked] : this.parts;
    if (parts.length === 0 && this.notices.size === 0) return;
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
      const counted = last && checked ? count(`w${chunk.length - 1}`) : 'NULL::int';
      const notices = last ? [...this.notices].map((c) => `, pg_notify('${c.replace(/'/g, "''")}', '')`).join('') : '';
      yield { sql: `${ctes.length ? `WITH ${ctes.join(', ')} ` : ''}SELECT ${counted} AS counted${notices}`, params, last };
      start = end;
    } while (start < parts.length);
  }

  private clear(): void {
    this.parts.length = 0;
    this.notices.clear();
  }
}

function holdsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  return Array.isArray(value) && value.some(holdsNul);
}

/**
 * `sql` with each $n replaced by its value as a literal: the text node-pg would send as that parameter
 * (utils.prepareValue: arrays as array literals, dates, JSON, bigint as text), quoted, so the server types it
 * from its context exactly as it types an untyped parameter. Buffers as bytea hex. Our statements' text has no
 * other `$` followed by a digit (the same assumption as the renumbering above).
 */
export function inlineParams(sql: string, params: unknown[]): string {
  return sql.replace(/\$(\d+)/g, (_, n: string) => {
    const i = Number(n) - 1;
    if (i < 0 || i >= params.length) throw new Error(`inlineParams: no value for $${n}`);
    const value = prepareValue(params[i]);
    if (value === null) return 'NULL';
    return quoteLiteral(Buffer.isBuffer(value) ? `\\x${value.toString('hex')}` : value);
  });
}

/** node-pg's own conversion of a parameter value to its text (exported at runtime, not in its types). */
const prepareValue = (pg as unknown as { utils: { prepareValue(value: unknown): string | Buffer | null } }).utils.prepareValue;

/**
 * A string literal of `text` as pg.escapeLiteral writes it (E'' with doubled backslashes when it has one, so
 * it reads the same whatever standard_conforming_strings says), with native replaces instead of its
 * per-character loop: a slice's JSON payloads are hundreds of kilobytes.
 */
export function quoteLiteral(text: string): string {
  const quoted = text.replace(/'/g, "''");
  return text.includes('\\') ? ` E'${quoted.replace(/\\/g, '\\\\')}'` : `'${quoted}'`;
}
