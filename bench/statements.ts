/**
 * A world's statements between two readings of pg_stat_statements (loaded on the test stack's PostgreSQL,
 * the extension created in each world's database): what a benchmark step asked PostgreSQL per unit of work.
 */
import type { Pool } from '../services/platform/db/pool';

export type StatementRows = Map<string, { calls: number; ms: number; q: string }>;

/** This world's statements so far (pg_stat_statements, created in the world's database); null where it is not loaded. */
export async function statementRows(pool: Pool): Promise<StatementRows | null> {
  const read = await pool.query(
    `SELECT queryid::text AS id, calls::float8 AS calls, total_exec_time::float8 AS ms, left(regexp_replace(query, '\\s+', ' ', 'g'), 110) AS q FROM pg_stat_statements
      WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND query NOT LIKE '%pg_stat_statements%'`,
  ).catch(() => null);
  return read && new Map(read.rows.map((r: { id: string; calls: number; ms: number; q: string }) => [r.id, r]));
}

/** The statements run between the readings, per `what`, most called first (`by: 'ms'`: most execution time first). */
export function statementList(before: StatementRows | null, after: StatementRows | null, units: number, what: string, by: 'calls' | 'ms' = 'calls'): void {
  if (!after) return;
  const diff = [...after].map(([id, r]) => ({ q: r.q, calls: r.calls - (before?.get(id)?.calls ?? 0), ms: r.ms - (before?.get(id)?.ms ?? 0) })).filter((r) => r.calls > 0);
  for (const r of diff.sort((x, y) => (by === 'ms' ? y.ms - x.ms : y.calls - x.calls)).slice(0, 25)) {
    console.log(`    ${(r.calls / units).toFixed(2)} per ${what}, ${(r.ms / r.calls).toFixed(3)} ms each: ${r.q}`);
  }
}

