/** Fault injection state set through POST /admin/faults (see README.md). */
export interface FaultsRequest {
  drop_next_broadcasts?: number;
  delay_next_broadcasts?: number;
  delay_blocks?: number;
  never_land?: string[];
  fail_reads_ms?: number;
  clear?: boolean;
}

/** What happens to a broadcast the node would otherwise accept. */
export type Fate = { kind: 'normal' } | { kind: 'drop' } | { kind: 'never' } | { kind: 'delay'; blocks: number };

export class Faults {
  private dropNext = 0;
  private delayNext = 0;
  private delayBlocks = 1;
  private readonly neverLand = new Set<string>();
  private failReadsUntil = 0;

  apply(req: FaultsRequest, nowMs: number): void {
    if (req.clear) {
      this.dropNext = 0;
      this.delayNext = 0;
      this.delayBlocks = 1;
      this.neverLand.clear();
      this.failReadsUntil = 0;
    }
    if (req.drop_next_broadcasts !== undefined) this.dropNext = req.drop_next_broadcasts;
    if (req.delay_next_broadcasts !== undefined) {
      this.delayNext = req.delay_next_broadcasts;
      this.delayBlocks = req.delay_blocks ?? 1;
    }
    for (const txid of req.never_land ?? []) this.neverLand.add(txid.toLowerCase().replace(/^0x/, ''));
    if (req.fail_reads_ms !== undefined) this.failReadsUntil = nowMs + req.fail_reads_ms;
  }

  /** Decides (and uses up) the fault for one transaction the node is about to accept. */
  fateOf(txid: string): Fate {
    if (this.neverLand.has(txid)) return { kind: 'never' };
    if (this.dropNext > 0) {
      this.dropNext--;
      return { kind: 'drop' };
    }
    if (this.delayNext > 0) {
      this.delayNext--;
      return { kind: 'delay', blocks: this.delayBlocks };
    }
    return { kind: 'normal' };
  }

  readsFailing(nowMs: number): boolean {
    return nowMs < this.failReadsUntil;
  }

  describe(nowMs: number): Record<string, unknown> {
    return {
      drop_next_broadcasts: this.dropNext,
      delay_next_broadcasts: this.delayNext,
      delay_blocks: this.delayBlocks,
      never_land: [...this.neverLand],
      fail_reads_ms: Math.max(0, this.failReadsUntil - nowMs),
    };
  }
}
