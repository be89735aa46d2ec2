/**
 * A processor store's rows in memory for one batch: loaded, then put and removed as commands apply, so
 * a later command in the batch sees an earlier one's effect; `save` writes only what changed, removals first.
 */
export class KeyedRows<T> {
  private readonly rows = new Map<string, T>();
  private readonly changedRows = new Map<string, T>();
  private readonly removedRows = new Map<string, T>();

  constructor(private readonly keyOf: (row: T) => string) {}

  load(row: T): void {
    this.rows.set(this.keyOf(row), row);
  }

  get(key: string): T | undefined {
    return this.rows.get(key);
  }

  values(): T[] {
    return [...this.rows.values()];
  }

  put(row: T): void {
    const key = this.keyOf(row);
    this.rows.set(key, row);
    this.changedRows.set(key, row);
    this.removedRows.delete(key);
  }

  remove(row: T): void {
    const key = this.keyOf(row);
    this.rows.delete(key);
    this.changedRows.delete(key);
    this.removedRows.set(key, row);
  }

  changed(): T[] {
    return [...this.changedRows.values()];
  }

  removed(): T[] {
    return [...this.removedRows.values()];
  }
}
