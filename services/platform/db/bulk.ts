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
