/**
 * Where the webhook dispatcher resumes after `ops restore` (docs/recovery.md, "Consumers after a restore").
 * Which events were delivered is the dispatcher's delivery history, off the log by design, so a restored
 * database cannot know it. Webhooks are at-least-once with `event_id` as the receivers' dedup key
 * (contract section 6), so the restore chooses: none lost, and re-delivery only of events that could
 * still have been in their retry schedule when the database was lost, i.e. those published within one
 * redelivery window before the newest event on the topic. Older ones had finished (delivered or dead).
 */
import { RETRY_DELAYS_MS } from '../webhooks/schedule';

/** A primary's whole schedule, then the backup's (failover restarts it): the longest an event stays in flight. */
export const REDELIVERY_WINDOW_MS = 2 * RETRY_DELAYS_MS.reduce((a, b) => a + b, 0);

/** Fed every record of account-events in offset order per partition; answers each partition's start offset. */
export class RedeliveryHorizon {
  private newest = -Infinity;
  /** Per partition, the records from `head` on are not yet known to be older than the horizon (offset order). */
  private readonly recent = new Map<number, { head: number; records: Array<{ offset: bigint; timestamp: number }> }>();

  /** `windowMs` on the wall clock (record timestamps): the redelivery window divided by the clock scale. */
  constructor(private readonly windowMs: number) {}

  see(partition: number, offset: bigint, timestamp: number): void {
    this.newest = Math.max(this.newest, timestamp);
    const list = this.recent.get(partition) ?? { head: 0, records: [] };
    list.records.push({ offset, timestamp });
    // The horizon only moves forward: what is older now stays older, so it is passed (and dropped in bulk).
    const horizon = this.newest - this.windowMs;
    while (list.head < list.records.length && list.records[list.head].timestamp < horizon) list.head += 1;
    if (list.head > 10_000) {
      list.records.splice(0, list.head);
      list.head = 0;
    }
    this.recent.set(partition, list);
  }

  /** The first offset at or after the horizon per partition; the partition's end when none is (nothing to re-deliver). */
  startOffsets(ends: Map<number, bigint>): Map<number, bigint> {
    const horizon = this.newest - this.windowMs;
    const start = new Map<number, bigint>();
    for (const [partition, end] of ends) {
      const list = this.recent.get(partition);
      const first = list?.records.slice(list.head).find((r) => r.timestamp >= horizon);
      start.set(partition, first ? first.offset : end);
    }
    return start;
  }
}
