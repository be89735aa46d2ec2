/**
 * Where a consumer's slices spend their time, for finding waits (not a metric to alert on): per slice, the
 * age of its oldest record when fetched (appended -> fetched: the broker, the wait behind the slice before,
 * the fetch), then fetched -> decoded -> applied (in the transaction) -> committed -> replied, the gap since
 * the previous slice of the partition ended (the loop between fetch and apply), and the records per slice.
 * Kept in memory since the last report; `report()` summarises and starts over. Every process prints its
 * reports on SIGUSR2 (onReportSignal, installed by services/main.ts for every process, whatever its roles; a
 * process with nothing registered says so instead of dying of the signal's default action); bench/orders.ts
 * sends it at the start and end of each step.
 */

export type SliceStage = 'queued' | 'gap' | 'decode' | 'apply' | 'commit' | 'reply' | 'records';

const STAGES: readonly SliceStage[] = ['records', 'queued', 'gap', 'decode', 'apply', 'commit', 'reply'];

/** Most samples kept per stage between reports (a long quiet stretch does not grow memory). */
const MAX_SAMPLES = 100_000;

export class SliceTimings {
  private samples = new Map<SliceStage, number[]>();
  private since = Date.now();

  add(stage: SliceStage, value: number): void {
    let list = this.samples.get(stage);
    if (!list) this.samples.set(stage, (list = []));
    if (list.length < MAX_SAMPLES) list.push(value);
  }

  /** One line: slices, and p50/p99/max of each stage since the last report; then starts over. */
  report(name: string): string {
    const seconds = ((Date.now() - this.since) / 1000).toFixed(1);
    const slices = this.samples.get('records')?.length ?? 0;
    const parts = STAGES.flatMap((stage) => {
      const list = this.samples.get(stage);
      if (!list || list.length === 0) return [];
      const sorted = Float64Array.from(list).sort();
      const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
      const unit = stage === 'records' ? '' : ' ms';
      return [`${stage} ${fmt(at(0.5))}/${fmt(at(0.99))}/${fmt(sorted[sorted.length - 1])}${unit}`];
    });
    this.samples = new Map();
    this.since = Date.now();
    return `${name} slices over ${seconds} s: ${slices}; p50/p99/max ${parts.join(', ')}`;
  }
}

function fmt(v: number): string {
  return v >= 100 ? v.toFixed(0) : v.toFixed(1);
}

/** The reports this process prints on SIGUSR2, by name (a role registers while it runs). */
const reports = new Map<string, () => string>();

/** Registers a report printed on SIGUSR2 until the returned function unregisters it. */
export function registerReport(name: string, report: () => string): () => void {
  reports.set(name, report);
  return () => {
    if (reports.get(name) === report) reports.delete(name);
  };
}

/** What SIGUSR2 prints: every registered report, or a line saying there is none (with what the process runs). */
export function reportLines(what: string): string {
  if (reports.size === 0) return `${what} (pid ${process.pid}): no timings kept in this process\n`;
  return [...reports.values()].map((r) => `${r()}\n`).join('');
}

let installed = false;

/**
 * Installs the SIGUSR2 handler once per process: a process that runs no processor (an API worker, the chain
 * roles) printed nothing and was killed by the signal's default action before.
 */
export function onReportSignal(what: string): void {
  if (installed) return;
  installed = true;
  process.on('SIGUSR2', () => process.stderr.write(reportLines(what)));
}
