/**
 * Where a consumer's slices spend their time, for finding waits (not a metric to alert on): per slice, the
 * age of its oldest record when fetched (appended -> fetched: the broker, the wait behind the slice before,
 * the fetch), then fetched -> decoded -> applied (in the transaction) -> committed -> replied, the gap since
 * the previous slice of the partition ended (the loop between fetch and apply), and the records per slice.
 * Kept in memory since the last report; `report()` summarises and starts over (the processor prints it on
 * SIGUSR2, which bench/orders.ts sends at the start and end of each step).
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
