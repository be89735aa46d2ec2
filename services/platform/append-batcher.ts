/**
 * Group commit on the producing side: records appended within `lingerMs` of each other (or up to
 * `maxRecords`) go to the broker in one produce request, and each caller learns when its own record is
 * stored (or that the request failed: then every record of that request failed, none is half-known).
 * With lingerMs 0 the batch is whatever arrived in the same turn of the event loop.
 */
import type { OutgoingRecord } from './kafka';

export interface AppendBatcherOptions {
  lingerMs: number;
  maxRecords: number;
  /** Sends one request; resolves once the broker has acknowledged all of it. */
  send(records: OutgoingRecord[]): Promise<unknown>;
}

interface Pending {
  record: OutgoingRecord;
  done(err?: unknown): void;
}

export class AppendBatcher {
  private queue: Pending[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: AppendBatcherOptions) {}

  append(records: OutgoingRecord[]): Promise<void> {
    const all = records.map(
      (record) => new Promise<void>((resolve, reject) => this.queue.push({ record, done: (err) => (err ? reject(err) : resolve()) })),
    );
    if (this.queue.length >= this.options.maxRecords) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), this.options.lingerMs);
    return Promise.all(all).then(() => undefined);
  }

  /** Sends what is queued now, in requests of at most maxRecords. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.options.maxRecords);
      this.options.send(batch.map((p) => p.record)).then(
        () => batch.forEach((p) => p.done()),
        (err) => batch.forEach((p) => p.done(err ?? new Error('append failed'))),
      );
    }
  }
}
