/**
 * Node reads remembered for one block: every read asked again while the head is the same block shares the
 * first one's answer (or its promise while it is in flight). A newer block empties the cache; a failed
 * read is forgotten so that the next ask tries again. Bounded, so a flood of distinct reads inside one
 * block cannot grow it without end (past the bound, reads are made and not kept).
 */
export class BlockCache {
  private block = -1;
  private readonly entries = new Map<string, Promise<unknown>>();

  constructor(private readonly maxEntries = 20_000) {}

  get<T>(block: number, key: string, read: () => Promise<T>): Promise<T> {
    if (block > this.block) {
      this.block = block;
      this.entries.clear();
    }
    // An ask for an older block than the cache holds (a slower caller) reads without touching the cache.
    if (block < this.block) return read();
    const found = this.entries.get(key);
    if (found) return found as Promise<T>;
    const pending = read();
    if (this.entries.size < this.maxEntries) {
      this.entries.set(key, pending);
      pending.catch(() => {
        if (this.entries.get(key) === pending) this.entries.delete(key);
      });
    }
    return pending;
  }
}
