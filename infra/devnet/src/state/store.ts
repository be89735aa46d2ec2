/**
 * Layered key-value state. The bottom layer is the solidified state; above it one layer per
 * unsolidified block, then the pending layer the node validates new transactions against (as
 * java-tron's revoking store does). Reading walks down the layers; a block becoming solid folds
 * its layer into the bottom one. Values are immutable: writers replace, never mutate.
 */
/** One layer's writes as key/value pairs (undefined: deleted), in write order: a block's state changes. */
export type StateChanges = [string, unknown][];

export class Layer {
  readonly entries = new Map<string, unknown>();

  constructor(public parent: Layer | null) {}

  get<T>(key: string): T | undefined {
    for (let layer: Layer | null = this; layer; layer = layer.parent) {
      if (layer.entries.has(key)) return layer.entries.get(key) as T | undefined;
    }
    return undefined;
  }

  set(key: string, value: unknown): void {
    this.entries.set(key, value);
  }

  changes(): StateChanges {
    return [...this.entries];
  }

  /** A child layer for tentative changes: merge() keeps them, dropping it forgets them. */
  child(): Layer {
    return new Layer(this);
  }

  /** Folds this layer's changes into its parent (the parent must be the layer it was made on). */
  mergeIntoParent(): void {
    const parent = this.parent;
    if (!parent) throw new Error('root layer has no parent');
    for (const [key, value] of this.entries) {
      if (value === undefined && parent.parent === null) parent.entries.delete(key);
      else parent.entries.set(key, value);
    }
    this.entries.clear();
  }

  /** Every live key and value as seen from this layer (for snapshots). */
  flatten(): Map<string, unknown> {
    const chain: Layer[] = [];
    for (let layer: Layer | null = this; layer; layer = layer.parent) chain.unshift(layer);
    const out = new Map<string, unknown>();
    for (const layer of chain) {
      for (const [key, value] of layer.entries) {
        if (value === undefined) out.delete(key);
        else out.set(key, value);
      }
    }
    return out;
  }
}
