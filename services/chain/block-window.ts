/**
 * What the blocks of one view hold, read forward once each: the transactions of the blocks read since the
 * window was last reset, kept while their block is less than `kept` blocks behind the newest one asked
 * for. A role reads the few blocks produced since its last pass instead of asking about each transaction
 * it waits for. The broadcaster keeps the head view (ids only), the confirmer the solidified view (with
 * each transaction's contents, so a landed one needs no read of its own).
 */
import { MAX_BLOCK_RANGE } from './reads';

/** Blocks [start, end) of the view: each transaction's id and what is kept of it, and the last block read when every block from `start` up to it was there (null: none). */
export type BlockReader<T> = (start: number, end: number) => Promise<{ txs: Array<[string, T]>; last: number | null }>;

/**
 * `read`: every block after the one read last, up to the head, was read (a transaction of those blocks not
 * in the window is not in them). `reset`: the first call, or the window was too far behind (or ahead): it
 * now starts at the head, nothing before is known. `gap`: a block was not served; what was read is kept and
 * the next call goes on from there.
 */
export type Advance = 'read' | 'reset' | 'gap';

export class BlockWindow<T> {
  private readonly seen = new Map<string, { block: number; tx: T }>();
  private to: number | null = null;

  constructor(private readonly readBlocks: BlockReader<T>, private readonly kept: number) {}

  /** Reads the blocks after the last one read up to `head`. */
  async advance(head: number): Promise<Advance> {
    if (this.to === null || head - this.to > this.kept || head < this.to) {
      this.reset(head);
      return 'reset';
    }
    while (this.to < head) {
      const { txs, last } = await this.readBlocks(this.to + 1, Math.min(head, this.to + MAX_BLOCK_RANGE) + 1);
      // None served (or an answer not past what was read: never loop on it).
      if (last === null || last <= this.to) return 'gap';
      for (const [id, tx] of txs) this.seen.set(id, { block: last, tx });
      this.to = last;
    }
    for (const [id, s] of this.seen) if (s.block <= head - this.kept) this.seen.delete(id);
    return 'read';
  }

  /** Forgets everything: the next advance starts at its head. */
  forget(): void {
    this.seen.clear();
    this.to = null;
  }

  has(txId: string): boolean {
    return this.seen.has(txId);
  }

  /** What was kept of the transaction, when it is in a block read. */
  get(txId: string): T | undefined {
    return this.seen.get(txId)?.tx;
  }

  private reset(head: number): void {
    this.seen.clear();
    this.to = head;
  }
}
