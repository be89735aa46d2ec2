/**
 * The reconciler's unit: a check compares something on chain with what the service's records say it
 * should be, and answers one row per subject. Checks are listed in checks.ts; the role runs them on a
 * timer, `./bin/ops reconcile` once. Amounts are bigint in the chain's base unit (SUN, USDT units).
 */
import type { Progress } from '../platform/progress';

export interface ReconcileRow {
  /** Who the row is about, printed in this key order: e.g. { pool, receiver, resource }. */
  subject: Record<string, string>;
  onChain: bigint;
  expected: bigint;
  /** onChain - expected. */
  difference: bigint;
  /**
   * The difference lies within what transactions still in flight may close by themselves (stored and not
   * yet settled, undelegations not yet finished): not a finding yet.
   */
  inFlight: boolean;
  /** What the difference is made of, when the check knows (e.g. the closed orders whose stake is still delegated). */
  note: string | null;
}

export interface ReconcileCheck {
  name: string;
  /** `meter`, when given, is told the check's long part (its chain reads) as it goes. */
  run(meter?: Progress): Promise<ReconcileRow[]>;
}

export interface CheckResult {
  check: string;
  rows: ReconcileRow[];
  ms: number;
}

/** A finding: a difference no transaction in flight explains. */
export const isFinding = (row: ReconcileRow): boolean => row.difference !== 0n && !row.inFlight;

/** `meter` (platform/progress.ts): each check named as it starts, and its own progress, for a person watching `ops reconcile`. */
export async function runChecks(checks: ReconcileCheck[], meter?: Progress): Promise<CheckResult[]> {
  const out: CheckResult[] = [];
  for (const [i, check] of checks.entries()) {
    meter?.note(`check ${i + 1}/${checks.length}: ${check.name}`);
    const started = performance.now();
    const rows = await check.run(meter);
    out.push({ check: check.name, rows, ms: performance.now() - started });
  }
  return out;
}

/** Stable identity of a row across passes (for how long a difference has lasted). */
export const rowKey = (check: string, row: ReconcileRow): string => `${check}|${Object.values(row.subject).join('|')}`;

/** The table `./bin/ops reconcile` prints: every row with a difference (all rows with `all`). */
export function formatResults(results: CheckResult[], all = false): string {
  const lines: string[] = [];
  for (const r of results) {
    const shown = all ? r.rows : r.rows.filter((row) => row.difference !== 0n);
    const findings = r.rows.filter(isFinding).length;
    lines.push(`${r.check}: ${r.rows.length} rows, ${findings} differing, ${shown.length - findings} in flight (${r.ms.toFixed(0)} ms)`);
    if (shown.length === 0) continue;
    const header = [...Object.keys(shown[0].subject), 'on_chain', 'expected', 'difference', 'state'];
    const body = shown.map((row) => [
      ...Object.values(row.subject), String(row.onChain), String(row.expected), String(row.difference),
      (row.difference === 0n ? 'ok' : row.inFlight ? 'in flight' : 'DIFFERS') + (row.note ? ` (${row.note})` : ''),
    ]);
    const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => (i < b.length - 1 ? b[i].length : 0))));
    const fmt = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]))).join('  ');
    lines.push(`  ${fmt(header)}`);
    for (const b of body) lines.push(`  ${fmt(b)}`);
  }
  return lines.join('\n');
}
