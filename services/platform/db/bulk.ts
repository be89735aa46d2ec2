import type { PoolClient } from './pool';

// PostgreSQL takes at most 65,535 parameters per statement; stay well below.
const MAX_PARAMS = 30_000;

/** Multi-row INSERT, split so no statement exceeds the parameter limit. `suffix` may add ON CONFLICT. */
export async function insertRows(
  client: PoolClient,
  table: string,
  columns: readonly string[],
  rows: unknown[][],
  suffix = '',
): Promise<number> {
  if (rows.length === 0) return 0;
  const perStatement = Math.max(1, Math.floor(MAX_PARAMS / columns.length));
  let inserted = 0;
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
    const sql = `INSERT INTO ${table} (${columns.map((c) => `"${c}"`).join(', ')}) VALUES ${tuples.join(', ')} ${suffix}`;
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
  const key: readonly C[] = typeof options.key === 'string' ? [options.key] : options.key;
  const fixed = new Set<C>([...key, ...(options.keep ?? [])]);
  // A name outside the column list is a typo that would silently update (or keep) the wrong thing.
  for (const c of fixed) if (!columns.includes(c)) throw new Error(`upsertRows ${table}: ${c} is not one of its columns`);
  if (key.length === 0) throw new Error(`upsertRows ${table}: empty conflict key`);
  const updates = columns.filter((c) => !fixed.has(c)).map((c) => `"${c}" = EXCLUDED."${c}"`);
  const action = updates.length === 0 ? 'DO NOTHING' : `DO UPDATE SET ${updates.join(', ')}`;
  return insertRows(client, table, columns, rows, `ON CONFLICT (${key.map((c) => `"${c}"`).join(', ')}) ${action}`);
}
