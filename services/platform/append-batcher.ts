/**
 * Group commit on the producing side: records appended within `lingerMs` of each other (or up to
 * `maxRecords`) go to the broker in one produce request, and each caller learns when its own record is
 * stored (or that the request failed: then every record of that request failed, none is half-known).
 * With lingerMs 0 the batch is whatever arrived in the same turn of the event loop.
 *
 * `maxInFlight` (optional) bounds the requests outstanding: while they are, records gather and leave together
 * as soon as one is answered (no linger: they have waited already), so batches grow with the broker's answer
 * time. Unbounded by default: with 2 the append stage's p50 rose at moderate load (bench/README.md).
 *
 * `idleFlush` (optional): while no request is outstanding, records do not linger: they leave once the current
 * turn of the event loop is over (setImmediate: what arrived in the same turn goes together). The linger then
 * groups only records that arrive while a request is out, which is when grouping saves requests; a command
 * that came alone (moderate load, sequential clients) no longer waits out the linger (about 2 ms of timer).
 */
import type { OutgoingRecord } from './kafka';

export interface AppendBatcherOptions {
  lingerMs: number;
  maxRecords: number;
  /** Requests outstanding at once (default: no bound). */
  maxInFlight?: number;
  /** Send at the end of the event loop's turn, without lingering, while no request is outstanding (default false). */
  idleFlush?: boolean;
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
  private immediate: NodeJS.Immediate | undefined;
  private inFlight = 0;
  /** Records are queued because maxInFlight requests are outstanding (not merely lingering). */
  private full = false;
  private readonly maxInFlight: number;

  constructor(private readonly options: AppendBatcherOptions) {
    this.maxInFlight = Math.max(1, options.maxInFlight ?? Number.POSITIVE_INFINITY);
  }

  append(records: OutgoingRecord[]): Promise<void> {
    const all = records.map(
      (record) => new Promise<void>((resolve, reject) => this.queue.push({ record, done: (err) => (err ? reject(err) : resolve()) })),
    );
    if (this.queue.length >= this.options.maxRecords || this.inFlight >= this.maxInFlight) this.flush();
    else if (this.options.idleFlush && this.inFlight === 0) this.immediate ??= setImmediate(() => this.flush());
    else this.timer ??= setTimeout(() => this.flush(), this.options.lingerMs);
    return Promise.all(all).then(() => undefined);
  }

  /** Sends what is queued now, in requests of at most maxRecords, as far as requests may be outstanding. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.immediate) clearImmediate(this.immediate);
    this.timer = undefined;
    this.immediate = undefined;
    while (this.queue.length > 0 && this.inFlight < this.maxInFlight) {
      this.full = false;
      const batch = this.queue.splice(0, this.options.maxRecords);
      this.inFlight++;
      this.options.send(batch.map((p) => p.record)).then(
        () => batch.forEach((p) => p.done()),
        (err) => batch.forEach((p) => p.done(err ?? new Error('append failed'))),
      ).finally(() => {
        this.inFlight--;
        // What gathered while every place was taken leaves at once.
        if (this.full) this.flush();
      });
    }
    if (this.queue.length > 0) this.full = true;
  }
}
