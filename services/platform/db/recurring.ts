/**
 * Named (prepared) statements for SQL the service sends over and over with different values: each pooled
 * connection parses and analyses the text once, then only binds and executes it (plans stay PostgreSQL's
 * choice, plan_cache_mode as configured). Only for texts that do not depend on the row count (column arrays,
 * `= ANY($1)`): at most MAX_NAMED texts get a name per process, any text past that goes unnamed as before.
 */
import type pg from 'pg';

const MAX_NAMED = 256;
const names = new Map<string, string>();

/** `client.query(text, values)`, as a named statement while this process has named fewer than MAX_NAMED texts. */
export function recurring<R extends pg.QueryResultRow = any>(
  client: pg.PoolClient | pg.Pool, text: string, values: unknown[],
): Promise<pg.QueryResult<R>> {
  let name = names.get(text);
  if (name === undefined && names.size < MAX_NAMED) {
    name = `recurring_${names.size}`;
    names.set(text, name);
  }
  return name === undefined ? client.query<R>(text, values) : client.query<R>({ name, text, values });
}

/** Texts named so far (tests). */
export function namedStatements(): number {
  return names.size;
}
