/**
 * Group commit for writes that finish one by one: while one write is under way, the rows that arrive
 * meanwhile queue and go together in the next (no linger: a lone row is written at once, so an idle
 * process adds no delay). Each caller learns when its own row is stored, or that its group's write
 * failed (then every row of that group failed; none is half-known). At most `maxRows` per write.
 */
export class GroupWriter<T> {
  private queue: Array<{ row: T; done(err?: unknown): void }> = [];
  private writing = false;

  constructor(private readonly write: (rows: T[]) => Promise<unknown>, private readonly maxRows = 500) {}

  add(row: T): Promise<void> {
    const stored = new Promise<void>((resolve, reject) => this.queue.push({ row, done: (err) => (err ? reject(err) : resolve()) }));
    if (!this.writing) void this.drain();
    return stored;
  }

  private async drain(): Promise<void> {
    this.writing = true;
    try {
      while (this.queue.length > 0) {
        const group = this.queue.splice(0, this.maxRows);
        try {
          await this.write(group.map((g) => g.row));
          for (const g of group) g.done();
        } catch (err) {
          for (const g of group) g.done(err ?? new Error('group write failed'));
        }
      }
    } finally {
      this.writing = false;
    }
  }
}
